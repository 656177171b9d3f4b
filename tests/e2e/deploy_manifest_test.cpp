// deploy/kubernetes: the MPIJob manifest has what the Kubeflow MPI Operator needs, its mpirun
// line matches its workers, every tokenbench flag in it is one `tokenbench run` knows, and the
// image (Dockerfile) has the user and ssh set-up the manifest assumes. No cluster needed.

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <string>
#include <vector>

#include "process.h"

namespace tokenbench::e2e {
namespace {

const std::string kDeploy = std::string(TOKENBENCH_SOURCE_DIR) + "/deploy/kubernetes";

YAML::Node find_kind(const std::vector<YAML::Node>& docs, const std::string& kind) {
  for (const auto& d : docs) {
    if (d["kind"] && d["kind"].as<std::string>() == kind) return d;
  }
  ADD_FAILURE() << "no " << kind << " in mpijob.yaml";
  return {};
}

std::vector<std::string> strings(const YAML::Node& list) {
  std::vector<std::string> out;
  for (const auto& item : list) out.push_back(item.as<std::string>());
  return out;
}

TEST(DeployManifest, MpiJobHasWhatTheOperatorNeeds) {
  const auto docs = YAML::LoadAllFromFile(kDeploy + "/mpijob.yaml");
  const YAML::Node job = find_kind(docs, "MPIJob");
  ASSERT_TRUE(job);
  EXPECT_EQ(job["apiVersion"].as<std::string>(), "kubeflow.org/v2beta1");
  EXPECT_FALSE(job["metadata"]["name"].as<std::string>().empty());
  const YAML::Node spec = job["spec"];
  EXPECT_EQ(spec["mpiImplementation"].as<std::string>(), "OpenMPI");
  const int slots = spec["slotsPerWorker"].as<int>();
  EXPECT_GE(slots, 1);
  const YAML::Node launcher = spec["mpiReplicaSpecs"]["Launcher"];
  const YAML::Node worker = spec["mpiReplicaSpecs"]["Worker"];
  ASSERT_TRUE(launcher && worker);
  EXPECT_EQ(launcher["replicas"].as<int>(), 1);
  const int workers = worker["replicas"].as<int>();
  EXPECT_GE(workers, 2);

  const YAML::Node lc = launcher["template"]["spec"]["containers"][0];
  const YAML::Node wc = worker["template"]["spec"]["containers"][0];
  ASSERT_TRUE(lc && wc);
  EXPECT_EQ(lc["image"].as<std::string>(), wc["image"].as<std::string>());
  for (const YAML::Node& c : {lc, wc}) {
    EXPECT_TRUE(c["resources"]["requests"]["cpu"]) << c["name"];
    EXPECT_TRUE(c["resources"]["requests"]["memory"]) << c["name"];
    EXPECT_EQ(c["securityContext"]["runAsUser"].as<int>(), 1000) << c["name"];
  }
  // The workers run sshd as the image's user, with the config the image writes.
  EXPECT_EQ(strings(wc["command"]), std::vector<std::string>{"/usr/sbin/sshd"});
  EXPECT_EQ(strings(wc["args"]),
            (std::vector<std::string>{"-De", "-f", "/home/mpiuser/.sshd_config"}));
  EXPECT_EQ(spec["sshAuthMountPath"].as<std::string>(), "/home/mpiuser/.ssh");

  // The launcher: mpirun with one rank per worker slot, then a tokenbench run.
  EXPECT_EQ(strings(lc["command"]), std::vector<std::string>{"mpirun"});
  const auto args = strings(lc["args"]);
  const auto np = std::find(args.begin(), args.end(), "-np");
  ASSERT_NE(np, args.end());
  EXPECT_EQ(std::stoi(*(np + 1)), workers * slots);
  const auto run = std::find(args.begin(), args.end(), "tokenbench");
  ASSERT_NE(run, args.end());
  ASSERT_NE(run + 1, args.end());
  EXPECT_EQ(*(run + 1), "run");

  // Every flag it gives is one `tokenbench run` knows; the results go to the shared volume.
  const auto help = run_process({TOKENBENCH_BINARY, "run", "--help"});
  ASSERT_EQ(help.exit_code, 0);
  std::string output_dir;
  for (auto it = run + 2; it != args.end(); ++it) {
    if (it->rfind("--", 0) != 0) continue;
    EXPECT_NE(help.out.find(*it + " "), std::string::npos) << *it << " is not a flag of run";
    if (*it == "--output-dir" && it + 1 != args.end()) output_dir = *(it + 1);
  }
  const YAML::Node mount = lc["volumeMounts"][0];
  ASSERT_TRUE(mount);
  EXPECT_EQ(output_dir.rfind(mount["mountPath"].as<std::string>() + "/", 0), 0u) << output_dir;
  EXPECT_EQ(wc["volumeMounts"][0]["mountPath"].as<std::string>(),
            mount["mountPath"].as<std::string>());

  // The volume is the claim in the same file, shared by every pod.
  const YAML::Node claim = find_kind(docs, "PersistentVolumeClaim");
  ASSERT_TRUE(claim);
  const std::string name = claim["metadata"]["name"].as<std::string>();
  for (const YAML::Node& replica : {launcher, worker}) {
    EXPECT_EQ(replica["template"]["spec"]["volumes"][0]["persistentVolumeClaim"]["claimName"]
                  .as<std::string>(),
              name);
  }
  EXPECT_EQ(strings(claim["spec"]["accessModes"]), std::vector<std::string>{"ReadWriteMany"});
}

TEST(DeployManifest, TheImageIsDebian12WithTheProjectsScriptAndANonRootUser) {
  const std::string docker = slurp(kDeploy + "/Dockerfile");
  ASSERT_FALSE(docker.empty());
  EXPECT_NE(docker.find("FROM debian:bookworm"), std::string::npos);
  EXPECT_NE(docker.find("scripts/install-deps.sh"), std::string::npos);
  EXPECT_NE(docker.find("useradd --create-home --uid 1000 mpiuser"), std::string::npos);
  EXPECT_NE(docker.find("\nUSER mpiuser\n"), std::string::npos);
  EXPECT_NE(docker.find("/home/mpiuser/.sshd_config"), std::string::npos);
  EXPECT_NE(docker.find("openssh-server"), std::string::npos);
  // The install script brings what the ranks and mpirun need.
  const std::string deps = slurp(std::string(TOKENBENCH_SOURCE_DIR) + "/scripts/install-deps.sh");
  for (const char* p : {"libopenmpi-dev", "openmpi-bin", "openssh-client"}) {
    EXPECT_NE(deps.find(p), std::string::npos) << p;
  }
}

}  // namespace
}  // namespace tokenbench::e2e
