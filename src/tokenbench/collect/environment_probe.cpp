#include "tokenbench/collect/environment_probe.h"

#include <limits.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <fstream>
#include <future>
#include <map>
#include <sstream>
#include <utility>

#include "tokenbench/client/http_get.h"

namespace tokenbench::collect {

telemetry::HostFacts collect_host() {
  telemetry::HostFacts h;
  char name[HOST_NAME_MAX + 1] = {};
  if (::gethostname(name, sizeof name - 1) == 0) h.host = name;
  utsname u{};
  if (::uname(&u) == 0) {
    h.os_sysname = u.sysname;
    h.os_release = u.release;
    h.os_machine = u.machine;
  }
  std::ifstream cpuinfo("/proc/cpuinfo");
  if (cpuinfo) {
    std::ostringstream ss;
    ss << cpuinfo.rdbuf();
    h.cpu_model = telemetry::cpu_model_from_cpuinfo(ss.str());
  }
  const long n = ::sysconf(_SC_NPROCESSORS_ONLN);
  h.cpu_count = n > 0 ? static_cast<int>(n) : 0;
  return h;
}

nlohmann::json probe_server(const std::string& base_url, const std::vector<std::string>& headers,
                            const std::string& models_body, const std::string& server_header,
                            double timeout_s, const client::HttpGetOptions& get) {
  std::vector<std::pair<std::string, std::future<client::HttpGetResult>>> asked;
  for (const char* path : telemetry::kServerInfoPaths) {
    asked.emplace_back(path,
                       std::async(std::launch::async, [&base_url, &headers, &get, path, timeout_s] {
                         return client::http_get(base_url + path, headers, timeout_s, get);
                       }));
  }
  std::map<std::string, std::string> answers;
  std::string header = server_header;
  for (auto& [path, future] : asked) {
    client::HttpGetResult r = future.get();
    if (!r.transport_ok || r.status != 200) continue;
    if (header.empty()) header = r.server_header;
    answers.emplace(path, std::move(r.body));
  }
  return telemetry::describe_server(base_url, header, models_body, answers);
}

}  // namespace tokenbench::collect
