#pragma once

#include <sys/stat.h>

#include <fstream>
#include <string>

namespace tokenbench::testing {

/// The lines the fake nvidia-smi prints every interval: two GPUs with constant readings (index,
/// uuid, name, util %, memory used and total MiB, power W, SM clock MHz, temperature C, driver).
inline constexpr const char* kFakeGpuLines =
    "0, GPU-0000aaaa, Fake GPU 80GB, 50, 1000, 8000, 100.00, 1500, 40, 999.01\n"
    "1, GPU-1111bbbb, Fake GPU 80GB, 70, 3000, 8000, 300.00, 1600, 60, 999.01\n";

/// Writes an executable `nvidia-smi` shell script into `dir`: it honours `-lms N` (default 1000)
/// and prints `before` once (a printf format: "\\n" is a line break), then kFakeGpuLines every N ms
/// until killed. With `ignore_term`, it ignores SIGTERM (the sampler must then SIGKILL it). Returns
/// the script's path.
inline std::string write_fake_nvidia_smi(const std::string& dir, const std::string& before = "",
                                         bool ignore_term = false) {
  const std::string path = dir + "/nvidia-smi";
  std::ofstream out(path);
  out << "#!/bin/sh\n"
      << (ignore_term ? "trap '' TERM\n" : "") << "ms=1000\n"
      << "while [ $# -gt 0 ]; do [ \"$1\" = -lms ] && ms=$2; shift; done\n"
      << "s=$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))\n"
      << "printf '" << before << "'\n"
      << "while true; do\n  printf '%s' '" << kFakeGpuLines << "'\n  sleep \"$s\"\ndone\n";
  out.close();
  ::chmod(path.c_str(), 0755);
  return path;
}

}  // namespace tokenbench::testing
