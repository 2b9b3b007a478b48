// Running the build, the graders and the GPU's tools: libuv spawns them and reads their output.
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <unistd.h>

#include <uv.h>

#include "wb.hpp"

extern char** environ;

namespace wb::cli {
namespace {

struct Reading {
  std::ofstream log;
  std::string partial;  // the line read so far
  const std::function<void(const std::string&)>* on_line = nullptr;
  Exit exit;
  bool exited = false;
};

void alloc_cb(uv_handle_t*, size_t suggested, uv_buf_t* buf) {
  buf->base = static_cast<char*>(std::malloc(suggested));
  buf->len = buf->base ? suggested : 0;
}

void read_cb(uv_stream_t* stream, ssize_t n, const uv_buf_t* buf) {
  auto* r = static_cast<Reading*>(stream->data);
  if (n > 0) {
    if (r->log.is_open()) r->log.write(buf->base, n).flush();
    if (r->on_line && *r->on_line) {
      r->partial.append(buf->base, static_cast<size_t>(n));
      for (size_t nl; (nl = r->partial.find('\n')) != std::string::npos;) {
        (*r->on_line)(r->partial.substr(0, nl));
        r->partial.erase(0, nl + 1);
      }
    }
  } else if (n < 0) {  // the end (UV_EOF), or an error: either way nothing more comes
    if (r->on_line && *r->on_line && !r->partial.empty()) (*r->on_line)(r->partial);
    r->partial.clear();
    uv_close(reinterpret_cast<uv_handle_t*>(stream), nullptr);
  }
  std::free(buf->base);
}

void exit_cb(uv_process_t* p, int64_t status, int signal) {
  auto* r = static_cast<Reading*>(p->data);
  r->exit = Exit{signal ? 0 : int(status), signal};
  r->exited = true;
  uv_close(reinterpret_cast<uv_handle_t*>(p), nullptr);
}

}  // namespace

Exit run(const Command& cmd, const std::function<void(const std::string&)>& on_line) {
  Reading r;
  r.on_line = &on_line;
  if (!cmd.log.empty()) {
    r.log.open(cmd.log, cmd.append_log ? std::ios::app : std::ios::trunc);
    if (!r.log) throw std::runtime_error("cannot write " + cmd.log);
  }
  // The child's environment: ours, changed as asked.
  std::vector<std::string> env_text;
  for (char** e = environ; *e; ++e) {
    const std::string kv = *e, key = kv.substr(0, kv.find('='));
    bool drop = cmd.set_env.count(key) > 0;
    for (const auto& u : cmd.unset_env) drop = drop || u == key;
    if (!drop) env_text.push_back(kv);
  }
  for (const auto& [k, v] : cmd.set_env) env_text.push_back(k + "=" + v);
  std::vector<char*> envp, argv;
  for (auto& s : env_text) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = cmd.argv;
  for (auto& s : args) argv.push_back(s.data());
  argv.push_back(nullptr);

  uv_loop_t loop;
  uv_loop_init(&loop);
  uv_file fds[2];
  if (int e = uv_pipe(fds, 0, 0)) throw std::runtime_error(std::string("cannot make a pipe: ") + uv_strerror(e));
  uv_pipe_t out;
  uv_pipe_init(&loop, &out, 0);
  uv_pipe_open(&out, fds[0]);
  out.data = &r;

  uv_stdio_container_t stdio[3];
  stdio[0].flags = cmd.inherit_stdin ? UV_INHERIT_FD : UV_IGNORE;
  stdio[0].data.fd = 0;
  stdio[1].flags = UV_INHERIT_FD;  // stdout and stderr into one pipe, in the order written
  stdio[1].data.fd = fds[1];
  stdio[2].flags = UV_INHERIT_FD;
  stdio[2].data.fd = fds[1];
  uv_process_options_t options{};
  options.exit_cb = exit_cb;
  options.file = argv[0];
  options.args = argv.data();
  options.env = envp.data();
  options.cwd = cmd.cwd.empty() ? nullptr : cmd.cwd.c_str();
  options.stdio_count = 3;
  options.stdio = stdio;
  uv_process_t child;
  child.data = &r;
  const int spawned = uv_spawn(&loop, &child, &options);
  uv_fs_t close_req;
  uv_fs_close(&loop, &close_req, fds[1], nullptr);  // the child has its copy; EOF comes when it ends
  uv_fs_req_cleanup(&close_req);
  if (spawned != 0) {
    uv_close(reinterpret_cast<uv_handle_t*>(&child), nullptr);
    uv_close(reinterpret_cast<uv_handle_t*>(&out), nullptr);
    uv_run(&loop, UV_RUN_DEFAULT);
    uv_loop_close(&loop);
    const std::string why = "cannot run " + cmd.argv[0] + ": " + uv_strerror(spawned) + "\n";
    if (r.log.is_open()) r.log << why;
    if (on_line) on_line(why.substr(0, why.size() - 1));
    return Exit{127, 0};
  }
  uv_read_start(reinterpret_cast<uv_stream_t*>(&out), alloc_cb, read_cb);
  uv_run(&loop, UV_RUN_DEFAULT);
  uv_loop_close(&loop);
  return r.exit;
}

std::string signal_name(int signal) {
  switch (signal) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGABRT: return "SIGABRT";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGKILL: return "SIGKILL";
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
    case SIGHUP: return "SIGHUP";
    case SIGPIPE: return "SIGPIPE";
    case SIGTRAP: return "SIGTRAP";
    case SIGXCPU: return "SIGXCPU";
    case SIGALRM: return "SIGALRM";
    default: return "signal " + std::to_string(signal);
  }
}

bool on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  if (!path) return false;
  std::string p = path;
  for (size_t start = 0;;) {
    const size_t end = p.find(':', start);
    const std::string dir = p.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (!dir.empty() && ::access((dir + "/" + program).c_str(), X_OK) == 0) return true;
    if (end == std::string::npos) return false;
    start = end + 1;
  }
}

}  // namespace wb::cli
