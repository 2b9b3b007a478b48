// watch [NN ...]: re-grades a chapter or exercise each time its file is saved, until Ctrl-C.
// libuv watches the files' folders (inotify, FSEvents, kqueue: editors save in place or write a
// new file and rename it) and, as a safety net, looks at the files every few seconds;
// WB_WATCH_POLL=1 only looks (every WB_WATCH_INTERVAL seconds, default 1).
#include <sys/stat.h>

#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <set>

#include <uv.h>

#include "wb.hpp"

namespace fs = std::filesystem;

namespace wb::cli {
namespace {

// Changes on every save, a rename over the file included.
std::string stamp(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return "gone";
#ifdef __APPLE__
  const auto m = st.st_mtimespec, ch = st.st_ctimespec;
#else
  const auto m = st.st_mtim, ch = st.st_ctim;
#endif
  return std::to_string(m.tv_sec) + "." + std::to_string(m.tv_nsec) + ":" + std::to_string(ch.tv_sec) + "." +
         std::to_string(ch.tv_nsec) + ":" + std::to_string(st.st_size) + ":" + std::to_string(st.st_ino);
}

struct Watcher {
  Context* c;
  std::vector<std::string> ids, files, stamps;
  uv_loop_t loop;
  uv_timer_t settle, poll;
  uv_signal_t sigint, sigterm;
  std::vector<uv_fs_event_t*> events;
  std::string how;

  // A file whose stamp differs from the one graded: grade it once the editor has finished
  // writing (200 ms later).
  void look() {
    for (size_t i = 0; i < files.size(); ++i)
      if (stamp(files[i]) != stamps[i]) {
        if (!uv_is_active(reinterpret_cast<uv_handle_t*>(&settle))) uv_timer_start(&settle, settled, 200, 0);
        return;
      }
  }
  static void settled(uv_timer_t* t) {
    auto* w = static_cast<Watcher*>(t->data);
    for (size_t i = 0; i < w->files.size(); ++i) {
      const std::string now = stamp(w->files[i]);
      if (now == w->stamps[i]) continue;
      w->stamps[i] = now;
      if (!exists(w->files[i])) continue;
      char at[16];
      const std::time_t tt = std::time(nullptr);
      std::strftime(at, sizeof at, "%H:%M:%S", std::localtime(&tt));
      *w->c->out << "\n" << at << " " << relative(*w->c, w->files[i]) << " changed" << std::endl;
      grade_once(*w->c, w->ids[i]);
      *w->c->out << "Watching (" << w->how << "): Ctrl-C stops." << std::endl;
    }
    w->look();  // a save made during the grade is graded next
  }
  static void grade_once(Context& c, const std::string& id) {
    try {
      grade(c, {id}, GradeOptions{});
    } catch (const std::exception& e) {
      *c.err << e.what() << "\n";
    }
  }
};

}  // namespace

int watch(Context& c, const std::vector<std::string>& names) {
  Watcher w;
  w.c = &c;
  w.ids = resolve_all(c, names);
  std::set<std::string> dirs;
  for (const auto& id : w.ids) {
    w.files.push_back(c.path(c.entry(id).kernel_file));
    w.stamps.push_back(stamp(w.files.back()));
    dirs.insert(fs::path(w.files.back()).parent_path().string());
  }
  uv_loop_init(&w.loop);
  uv_timer_init(&w.loop, &w.settle);
  uv_timer_init(&w.loop, &w.poll);
  w.settle.data = w.poll.data = &w;
  const char* poll_env = std::getenv("WB_WATCH_POLL");
  const char* interval_env = std::getenv("WB_WATCH_INTERVAL");
  const double interval = interval_env && *interval_env ? std::atof(interval_env) : 1.0;
  bool events = !(poll_env && *poll_env);
  for (const auto& d : dirs) {
    if (!events) break;
    auto* e = new uv_fs_event_t;
    uv_fs_event_init(&w.loop, e);
    e->data = &w;
    if (uv_fs_event_start(e, [](uv_fs_event_t* h, const char*, int, int) { static_cast<Watcher*>(h->data)->look(); },
                          d.c_str(), 0) != 0) {
      events = false;  // no file events here: look every interval instead
      uv_close(reinterpret_cast<uv_handle_t*>(e), [](uv_handle_t* h) { delete reinterpret_cast<uv_fs_event_t*>(h); });
      break;
    }
    w.events.push_back(e);
  }
  std::ostringstream seconds;
  seconds << interval;
  w.how = events ? "file events" : "looking every " + seconds.str() + " s";
  // With events, a look every 5 s too: a folder on a network file system may send none.
  const uint64_t every = events ? 5000 : uint64_t(std::max(0.05, interval) * 1000);
  uv_timer_start(&w.poll, [](uv_timer_t* t) { static_cast<Watcher*>(t->data)->look(); }, every, every);
  for (uv_signal_t* s : {&w.sigint, &w.sigterm}) {
    uv_signal_init(&w.loop, s);
    s->data = &w;
    uv_signal_start(s, [](uv_signal_t* h, int) {
      auto* me = static_cast<Watcher*>(h->data);
      *me->c->out << "\nStopped watching." << std::endl;
      uv_stop(&me->loop);
    }, s == &w.sigint ? SIGINT : SIGTERM);
  }
  if (w.ids.size() == 1) Watcher::grade_once(c, w.ids[0]);
  *c.out << "Watching " << w.ids.size() << " file" << (w.ids.size() == 1 ? "" : "s") << " (" << w.how
         << "): save one to grade it; Ctrl-C stops." << std::endl;
  w.look();  // saved while the first grade ran
  uv_run(&w.loop, UV_RUN_DEFAULT);
  for (auto* e : w.events)
    uv_close(reinterpret_cast<uv_handle_t*>(e), [](uv_handle_t* h) { delete reinterpret_cast<uv_fs_event_t*>(h); });
  for (uv_handle_t* h : {reinterpret_cast<uv_handle_t*>(&w.settle), reinterpret_cast<uv_handle_t*>(&w.poll),
                         reinterpret_cast<uv_handle_t*>(&w.sigint), reinterpret_cast<uv_handle_t*>(&w.sigterm)})
    uv_close(h, nullptr);
  uv_run(&w.loop, UV_RUN_DEFAULT);
  uv_loop_close(&w.loop);
  return 0;
}

}  // namespace wb::cli
