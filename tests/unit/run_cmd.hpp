// Run the built swapsim binary in the source directory and capture its output; the helpers
// the tests of whole runs share (a temporary folder, a run's result.json).
#pragma once

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

extern char** environ;

namespace swapsim_test {

struct Result {
    int status = -1;  // exit status, 128 + signal if killed
    std::string out, err;
};

inline std::string slurp(const std::string& path)
{
    std::ifstream f(path, std::ios::binary);
    if (!f)
        throw std::runtime_error("cannot read " + path);
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

// A temp file that is removed when it goes out of scope.
struct TempFile {
    std::string path;
    int fd = -1;
    TempFile()
    {
        path = (std::filesystem::temp_directory_path() / "swapsim_test.XXXXXX").string();
        fd = ::mkstemp(path.data());
        if (fd < 0)
            throw std::runtime_error("mkstemp failed");
    }
    ~TempFile()
    {
        if (fd >= 0)
            ::close(fd);
        ::unlink(path.c_str());
    }
    TempFile(const TempFile&) = delete;
    TempFile& operator=(const TempFile&) = delete;
};

// SWAPSIM_BINARY args..., with the source dir as working directory and stdin from /dev/null.
inline Result run_swapsim(const std::vector<std::string>& args)
{
    TempFile out, err;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, out.fd, 1);
    posix_spawn_file_actions_adddup2(&fa, err.fd, 2);
    posix_spawn_file_actions_addchdir_np(&fa, SWAPSIM_SOURCE_DIR);
    std::vector<std::string> storage{SWAPSIM_BINARY};
    storage.insert(storage.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : storage)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = 0;
    int rc = posix_spawn(&pid, SWAPSIM_BINARY, &fa, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0)
        throw std::runtime_error(std::string("cannot run " SWAPSIM_BINARY ": ") + std::strerror(rc));
    int st = 0;
    while (waitpid(pid, &st, 0) < 0) {
        if (errno != EINTR)
            throw std::runtime_error("waitpid failed");
    }
    Result r;
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    r.out = slurp(out.path);
    r.err = slurp(err.path);
    return r;
}

// A temporary folder, removed with what it holds when it goes out of scope.
struct TempDir {
    std::filesystem::path path;
    TempDir()
    {
        std::string t = (std::filesystem::temp_directory_path() / "swapsim_test.XXXXXX").string();
        if (!::mkdtemp(t.data()))
            throw std::runtime_error("mkdtemp failed");
        path = t;
    }
    ~TempDir() { std::filesystem::remove_all(path); }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
};

// `swapsim run SCENARIO --out OUT EXTRA...`, which must succeed; its result.json.
inline nlohmann::json run_json(const std::string& scenario, const std::vector<std::string>& extra,
                               const std::filesystem::path& out)
{
    std::vector<std::string> args = {"run", scenario, "--out", out.string()};
    args.insert(args.end(), extra.begin(), extra.end());
    auto r = run_swapsim(args);
    INFO(r.err);
    REQUIRE(r.status == 0);
    return nlohmann::json::parse(slurp((out / "result.json").string()));
}

// `swapsim run SCENARIO --set S ...` into a temporary folder, which must succeed; its result.json.
inline nlohmann::json run_sets(const std::string& scenario, const std::vector<std::string>& sets)
{
    TempDir d;
    std::vector<std::string> extra;
    for (const auto& s : sets)
        extra.insert(extra.end(), {"--set", s});
    return run_json(scenario, extra, d.path);
}

}  // namespace swapsim_test
