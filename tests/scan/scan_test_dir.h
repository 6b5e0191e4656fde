// A fresh temporary directory for a scan test, removed at the end of the test.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace fsmove::scan {

class ScanTestDir {
 public:
  ScanTestDir() {
    std::string tmpl =
        (std::filesystem::temp_directory_path() / "fsmove-scan-test-XXXXXX").string();
    path_ = mkdtemp(tmpl.data());
  }
  ~ScanTestDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path Write(const std::string& rel, const std::string& content) const {
    std::filesystem::path p = path_ / rel;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p) << content;
    return p;
  }

 private:
  std::filesystem::path path_;
};

}  // namespace fsmove::scan
