#!/usr/bin/env bash
# Installs every build and test dependency of tokenbench from Debian packages.
# Idempotent: packages already installed are skipped, and nothing is fetched when all are present.
#
#   install-deps.sh         what `make test` needs (and `make bench`: /usr/bin/time from `time`,
#                           h2load from nghttp2-client; distributed runs: Open MPI, with ssh for
#                           mpirun to reach other hosts;
#                           clang-format for `make format-check`, which CI runs; zsh, whose
#                           parser checks the generated zsh completion; `make package` needs
#                           only cmake's cpack and dpkg-dev's dpkg-shlibdeps, both here)
#   install-deps.sh fuzz    that, plus clang and its runtimes (libFuzzer, sanitizers) for `make fuzz`
#   install-deps.sh tidy    that, plus clang-tidy for `make tidy`
#
# Then the chart library that report.html embeds (uPlot, docs/REPORTS.md) from the npm registry,
# into third_party/npm/node_modules: `npm ci` installs the version pinned in
# third_party/npm/package-lock.json and checks its sha512 integrity; skipped when installed.
set -euo pipefail

PACKAGES=(
  build-essential cmake pkg-config
  libcurl4-openssl-dev libssl-dev
  libsimdjson-dev
  nlohmann-json3-dev
  libcli11-dev
  libfmt-dev
  libboost-dev
  libyaml-cpp-dev
  libgtest-dev libgmock-dev
  libbenchmark-dev
  python3
  chromium
  libpcre2-dev libutf8proc-dev libsentencepiece-dev
  libpng-dev
  libzstd-dev
  libsqlite3-dev
  libnghttp2-dev
  nghttp2-client
  libopenmpi-dev openmpi-bin openssh-client
  time
  clang-format
  zsh
)

# Optional groups, named on the command line.
for group in "$@"; do
  case "$group" in
    fuzz) PACKAGES+=(clang libclang-rt-dev) ;;
    tidy) PACKAGES+=(clang-tidy) ;;
    *)
      echo "install-deps: unknown group '$group' (known: fuzz, tidy)" >&2
      exit 2
      ;;
  esac
done

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

# node and npm fetch the tokenizer fixtures and run the reference encoders. They may come from
# another package than Debian's (nodesource's `nodejs` bundles npm), so look for the commands.
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  missing+=(nodejs npm)
fi

if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then
    SUDO="sudo"
  fi
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -y
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
fi

# report.html's chart library, pinned with its integrity hash in the committed lock file.
NPM_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/third_party/npm"
installed_ok() {
  node -e '
    const fs = require("fs"), dir = process.argv[1];
    const want = JSON.parse(fs.readFileSync(dir + "/package-lock.json")).packages;
    for (const [path, p] of Object.entries(want)) {
      if (!path) continue;
      const have = JSON.parse(fs.readFileSync(dir + "/" + path + "/package.json"));
      if (have.version !== p.version) process.exit(1);
    }' "$NPM_DIR" 2>/dev/null
}
if ! installed_ok; then
  echo "install-deps: installing the report's chart library (npm ci in third_party/npm)"
  npm ci --prefix "$NPM_DIR" --ignore-scripts --no-audit --no-fund --loglevel=error
fi
