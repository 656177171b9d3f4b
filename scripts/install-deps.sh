#!/usr/bin/env bash
# Installs every build and test dependency of tokenbench from Debian packages.
# Idempotent: packages already installed are skipped, and nothing is fetched when all are present.
#
#   install-deps.sh         what `make test` needs
#   install-deps.sh fuzz    that, plus clang and its runtimes (libFuzzer, sanitizers) for `make fuzz`
set -euo pipefail

PACKAGES=(
  build-essential cmake pkg-config
  libcurl4-openssl-dev
  libsimdjson-dev
  nlohmann-json3-dev
  libcli11-dev
  libfmt-dev
  libboost-dev
  libyaml-cpp-dev
  libgtest-dev libgmock-dev
  libbenchmark-dev
  python3
  libpcre2-dev libutf8proc-dev libsentencepiece-dev
)

# Optional groups, named on the command line.
for group in "$@"; do
  case "$group" in
    fuzz) PACKAGES+=(clang libclang-rt-dev) ;;
    *)
      echo "install-deps: unknown group '$group' (known: fuzz)" >&2
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

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  SUDO="sudo"
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -y
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
