// CPU backend: the instrumentation of kernel files built instrumented. Each access the compiler
// reports (wb_emu/instrument.hpp, access.cpp) is sorted by address: shared memory goes to the race
// check, the check of reads of bytes the block never wrote, and the count of bank-conflict
// wavefronts per warp request; device memory (the arena, memory.cpp) and registered symbols to the
// count of requests and 32-byte sectors per warp (a GPU's measure of coalescing); everything else
// (the thread's stack, its parameters, the host's memory) is not the kernel's device memory and is
// ignored. Accesses out of bounds or misaligned are handed to bounds.cpp. An access is known by the
// address of the instruction that made it (its `pc`); symbolize.cpp turns that into file:line for
// messages and per-line statistics.
#include "instrument.hpp"

#include "bounds.hpp"
#include "memory.hpp"
#include "symbolize.hpp"
#include "worker.hpp"

#include <wb_emu/diagnostics.hpp>
#include <wb_emu/atomics.hpp>
#include <wb_emu/launch.hpp>

#include <algorithm>
#include <cstring>
#include <functional>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

namespace wb_emu::internal {
namespace {
// Where accesses are made: an instruction (its address; it loads or stores), and the memory
// (global or shared) it touched.
struct SiteKey {
  const void* pc;
  bool store;
  bool shared;
  bool operator==(const SiteKey& o) const { return pc == o.pc && store == o.store && shared == o.shared; }
};
struct SiteKeyHash {
  std::size_t operator()(const SiteKey& k) const {
    return std::hash<const void*>()(k.pc) * 4 + k.store * 2 + k.shared;
  }
};
struct Site {
  SiteKey key;
  int bytes;
  AccessStats stats;  // global memory
  BankStats banks;    // shared memory
  std::uint64_t shared_bytes = 0;  // shared memory: bytes its lanes accessed
};
// One access waiting for the rest of its warp: the thread's k-th access at `site`.
struct Event {
  std::uint32_t site, k;
  std::uint32_t bytes, lane;
  std::uintptr_t addr;
};
// What the race check knows of one 4-byte word of shared memory in the current interval (the
// accesses since the last __syncthreads()): its last writer and up to two readers.
struct Shadow {
  std::uint64_t interval = 0;
  int writer = -1;
  const void* wpc = nullptr;
  std::uint32_t wepoch = 0;
  std::uint64_t wvalue = 0;  // what it wrote (the word's bytes it covered), for a warp-uniform store
  int reader[2] = {-1, -1};
  const void* rpc[2] = {nullptr, nullptr};
  std::uint32_t repoch[2] = {0, 0};
};

// Which bytes of one 4-byte word of shared memory the running block has written: `mask` (bit i:
// byte i) counts only when `block` is the block's stamp, so nothing is cleared between blocks.
struct Written {
  std::uint64_t block = 0;
  std::uint8_t mask = 0;
};
// The first read of shared memory that no thread of the block had written: reported when the
// interval (the accesses up to the next __syncthreads()) ends without a race being found first,
// so that a missing barrier (another thread writes it later in the interval) is named as a race.
struct UninitRead {
  bool pending = false;
  std::size_t offset = 0;
  unsigned bytes = 0;
  int thread = 0;
  const void* pc = nullptr;
};
}  // namespace

struct Instr {
  // global memory: sites of this launch, per-thread access counters and per-warp pending accesses
  std::vector<Site> sites;
  std::unordered_map<SiteKey, std::uint32_t, SiteKeyHash> site_index;
  std::vector<std::uint32_t> kcount;  // [site * n + thread]
  std::vector<std::vector<Event>> warp_events;
  std::vector<Event> regrouped;  // scratch
  // the sites found last, by a hash of their key (a lookup in site_index costs more)
  struct CachedSite {
    SiteKey key{nullptr, false, false};
    std::uint32_t site = ~0u;
  };
  CachedSite site_cache[16];
  std::vector<unsigned> warp_live;
  std::vector<std::uint64_t> segments;  // scratch
  std::vector<std::uint64_t> words;     // scratch
  // shared memory: the race check
  std::vector<Shadow> shadow = std::vector<Shadow>(kSharedArena / 4 + 16);
  std::uint64_t interval = 0;
  std::vector<std::uint32_t> wsync;  // __syncwarp()s each thread has passed
  // shared memory: what the block has written, and its first read of an unwritten byte
  std::vector<Written> written = std::vector<Written>(kSharedArena / 4 + 16);
  std::uint64_t block_stamp = 0;
  UninitRead uninit;
  // atomics on device memory in this launch, and the address of the first
  std::uint64_t global_atomics = 0;
  std::uintptr_t atomic_address = 0;
  // A store by lane `thread` to the word at `offset` that another lane of its warp, `writer`, wrote
  // with the same instruction since the last barrier: a warp-uniform store when both wrote the same
  // value, which a GPU makes well defined (one lane's store, all alike), else a race. The store has
  // not happened when it is reported, so its value is compared at the next event of the block.
  struct UniformStore {
    bool pending = false;
    std::size_t offset = 0;  // the word's
    unsigned bytes = 0;
    std::uint32_t before = 0;  // the word as the other lane left it
    int writer = 0, thread = 0;
    const void* writer_pc = nullptr;
    const void* pc = nullptr;
  } uniform;
};

namespace {
std::mutex stats_mutex;
MemoryStats last_stats;
SharedMemoryStats last_shared_stats;

// The running block's first recorded access: set up its per-thread and per-warp records.
Instr& instr_begin_block(Worker& w) {
  if (!w.instr) w.instr = new Instr;
  Instr& I = *w.instr;
  w.instr_active = true;
  const unsigned warps = (w.n + 31) / 32;
  if (I.warp_events.size() < warps) I.warp_events.resize(warps);
  for (unsigned i = 0; i < warps; ++i) I.warp_events[i].clear();
  I.warp_live.assign(warps, 0);
  for (unsigned t = 0; t < w.n; ++t)
    if (w.th[t].st != St::done) ++I.warp_live[t / 32];
  I.kcount.assign(I.sites.size() * w.n, 0);
  I.wsync.assign(w.n, 0);
  ++I.interval;  // a new block: no shared access of an earlier one counts
  ++I.block_stamp;  // nor any shared byte it wrote
  I.uninit = UninitRead{};
  I.uniform = Instr::UniformStore{};
  return I;
}

// The wavefronts of one shared-memory request (events [b, e) of one warp, sorted by lane) and its
// phases (see wb_emu::BankStats): per phase, the most distinct 4-byte words any one bank holds.
void count_banks(Instr& I, const Event* b, const Event* e, BankStats& st) {
  unsigned size = 0;
  for (const Event* p = b; p != e; ++p) size = p->bytes > size ? p->bytes : size;
  const unsigned lanes_per_phase = size <= 4 ? 32 : size <= 8 ? 16 : 8;
  std::uint64_t wavefronts = 0, phases = 0;
  for (const Event* p = b; p != e;) {
    const unsigned phase = p->lane / lanes_per_phase;
    I.words.clear();
    for (; p != e && p->lane / lanes_per_phase == phase; ++p)
      for (std::uintptr_t word = p->addr / 4; word <= (p->addr + (p->bytes ? p->bytes : 1) - 1) / 4; ++word)
        I.words.push_back(word);
    std::sort(I.words.begin(), I.words.end());
    I.words.erase(std::unique(I.words.begin(), I.words.end()), I.words.end());
    unsigned per_bank[32] = {};
    unsigned ways = 0;
    for (std::uint64_t word : I.words) ways = std::max(ways, ++per_bank[word % 32]);
    wavefronts += ways;
    ++phases;
    st.max_ways = std::max(st.max_ways, ways);
  }
  st.requests += 1;
  st.wavefronts += wavefronts;
  st.ideal_wavefronts += phases;
}

// Turns the pending accesses of warp `wi` into requests: the lanes that made their k-th access
// at one site form one request. A global request's sectors are the distinct 32-byte segments
// they touch; a shared one's wavefronts are counted by count_banks().
void flush_warp(Instr& I, unsigned wi) {
  std::vector<Event>& ev = I.warp_events[wi];
  if (ev.empty()) return;
  // Group the events by request, lanes in order. Usually the lanes ran one after another and each
  // made the same accesses in the same order: then the events are one block per lane, and request
  // j is event j of every block. Otherwise, sort.
  std::size_t m = 0;
  while (m < ev.size() && ev[m].lane == ev[0].lane) ++m;
  bool lane_major = ev.size() % m == 0;
  for (std::size_t i = m; lane_major && i < ev.size(); ++i)
    lane_major = ev[i].site == ev[i - m].site && ev[i].k == ev[i - m].k && ev[i].lane > ev[i - m].lane &&
                 ev[i].lane == ev[i - i % m].lane;
  if (lane_major) {
    I.regrouped.clear();
    for (std::size_t j = 0; j < m; ++j)
      for (std::size_t b = j; b < ev.size(); b += m) I.regrouped.push_back(ev[b]);
    ev.swap(I.regrouped);
  } else {
    std::sort(ev.begin(), ev.end(), [](const Event& a, const Event& b) {
      return a.site != b.site ? a.site < b.site : a.k != b.k ? a.k < b.k : a.lane < b.lane;
    });
  }
  for (std::size_t i = 0; i < ev.size();) {
    std::size_t j = i;
    if (I.sites[ev[i].site].key.shared) {
      for (; j < ev.size() && ev[j].site == ev[i].site && ev[j].k == ev[i].k; ++j)
        I.sites[ev[i].site].shared_bytes += ev[j].bytes;
      count_banks(I, ev.data() + i, ev.data() + j, I.sites[ev[i].site].banks);
      i = j;
      continue;
    }
    std::uint64_t bytes = 0;
    AccessStats& st = I.sites[ev[i].site].stats;
    I.segments.clear();
    for (; j < ev.size() && ev[j].site == ev[i].site && ev[j].k == ev[i].k; ++j) {
      bytes += ev[j].bytes;
      st.lowest = std::min(st.lowest, ev[j].addr);
      st.highest = std::max(st.highest, ev[j].addr + (ev[j].bytes ? ev[j].bytes : 1));
      for (std::uintptr_t seg = ev[j].addr >> 5; seg <= (ev[j].addr + ev[j].bytes - 1) >> 5; ++seg)
        I.segments.push_back(seg);
    }
    if (!std::is_sorted(I.segments.begin(), I.segments.end())) std::sort(I.segments.begin(), I.segments.end());
    const auto distinct = std::unique(I.segments.begin(), I.segments.end()) - I.segments.begin();
    const std::uint64_t ideal = (bytes + 31) / 32;
    st.requests += 1;
    st.sectors += static_cast<std::uint64_t>(distinct);
    st.ideal_sectors += ideal;
    const auto touched = static_cast<std::uint64_t>(distinct);
    st.excess_sectors += touched > ideal ? touched - ideal : 0;
    st.bytes += bytes;
    i = j;
  }
  ev.clear();
}

std::string thread_triple(const Worker& w, int t) {
  const unsigned u = static_cast<unsigned>(t), bx = w.g->block.x, by = w.g->block.y;
  return triple(u % bx, u / bx % by, u / (bx * by));
}

// "`tile`" or "`buf` (extern __shared__)", and the offset of shared byte `offset` in it.
std::string shared_array_at(const Worker& w, std::size_t offset, std::size_t* in) {
  std::string name = "shared memory";
  std::size_t base = 0;
  for (const SharedName& n : w.shared_names)
    if (offset >= n.offset && offset < n.offset + n.bytes) {
      name = std::string("`") + n.name + "`";
      base = n.offset;
    }
  if (offset >= w.dynamic_base) {
    name = w.dynamic_name ? std::string("`") + w.dynamic_name + "` (extern __shared__)" : "extern __shared__ memory";
    base = w.dynamic_base;
  }
  *in = offset - base;
  return name;
}

// The interval ends: a read of shared memory that no thread had written, and that no other
// thread wrote later in the interval (a race, reported when it happens), is a fault.
void report_uninit(Worker& w) {
  Instr& I = *w.instr;
  if (!I.uninit.pending || w.fault) return;
  const UninitRead& u = I.uninit;
  std::size_t in = 0;
  const std::string name = shared_array_at(w, u.offset, &in);
  const unsigned bytes = u.bytes ? u.bytes : 4;
  const SourceLine l = source_line(u.pc);
  raise_fault(w, FaultKind::unwritten_read, "read of " + name + " at byte offset " + std::to_string(in) + " (element " +
                     std::to_string(in / bytes) + " of " + std::to_string(bytes) +
                     " bytes), which no thread of the block has written, at " + where_pc(u.pc) + ", block " +
                     triple(blockIdx.x, blockIdx.y, blockIdx.z) + ", thread " + thread_triple(w, u.thread) +
                     "\n  Shared memory holds garbage when a block starts (on a GPU, whatever an earlier block left; "
                     "here 0xFF bytes, a NaN as a float and -1 as an int), and neither a GPU nor compute-sanitizer "
                     "says so: write every element before any thread reads it (clear a shared array that is added "
                     "to), and check that the loads that fill it cover every element the reads use.",
              FaultAt{u.thread, l.file, l.line});
}
void check_uniform_store(Worker& w, bool here);
}  // namespace

void instr_flush_all(Worker& w) {
  Instr& I = *w.instr;
  check_uniform_store(w, false);
  for (unsigned i = 0; i < (w.n + 31) / 32; ++i) flush_warp(I, i);
  report_uninit(w);
}

void instr_thread_done(Worker& w, unsigned t) {
  Instr& I = *w.instr;
  check_uniform_store(w, false);
  if (--I.warp_live[t / 32] == 0) flush_warp(I, t / 32);
}

void instr_barrier_released(Worker& w) {
  instr_flush_all(w);
  ++w.instr->interval;
}

void instr_syncwarp_passed(Worker& w, unsigned t) { ++w.instr->wsync[t]; }

namespace {
std::string describe_thread(const Worker& w, int t) {
  std::string s = "thread " + std::to_string(t);
  const unsigned bx = w.g->block.x, by = w.g->block.y;
  if (by > 1 || w.g->block.z > 1) {
    const unsigned u = static_cast<unsigned>(t);
    s += " (threadIdx " + std::to_string(u % bx) + "," + std::to_string(u / bx % by) + "," +
         std::to_string(u / (bx * by)) + ")";
  }
  return s;
}

[[noreturn]] void report_race(Worker& w, std::size_t offset, unsigned bytes, int u, bool u_store, const void* upc,
                              int t, bool t_store, const void* pc) {
  std::size_t in = 0;
  const std::string name = shared_array_at(w, offset, &in);
  std::string why = "shared-memory race on " + name + " at byte offset " + std::to_string(in) + " (element " +
                    std::to_string(in / (bytes ? bytes : 4)) + " of " + std::to_string(bytes) +
                    " bytes): two threads touch it between the same two __syncthreads(), one of them writing:";
  why += "\n    " + describe_thread(w, u) + (u_store ? " wrote it at " : " read it at ") + where_pc(upc);
  why += "\n    " + describe_thread(w, t) + (t_store ? " writes it at " : " reads it at ") + where_pc(pc);
  why += "\n  Threads run in no particular order between barriers: put a __syncthreads() (reached by every thread "
         "of the block) between one thread's write and another thread's access, or use an atomic.";
  const SourceLine l = source_line(pc);  // the second access: the one that finds the race
  fault_here(w, FaultKind::race, why, FaultAt{t, l.file, l.line});
}

// The pending warp-uniform store (Instr::uniform) has happened: a race unless it wrote the value
// the other lane had. `here`: called on a kernel thread (the fault stops it), else from the scheduler.
void check_uniform_store(Worker& w, bool here) {
  Instr& I = *w.instr;
  if (!I.uniform.pending) return;
  const Instr::UniformStore u = I.uniform;
  I.uniform.pending = false;
  std::uint32_t now = 0;
  std::memcpy(&now, w.shared + u.offset, 4);
  if (now == u.before || w.fault) return;
  std::size_t in = 0;
  const std::string name = shared_array_at(w, u.offset, &in);
  const SourceLine l = source_line(u.pc);
  (here ? fault_here : raise_fault)(w, FaultKind::race, "shared-memory race on " + name + " at byte offset " + std::to_string(in) +
                     ": two lanes of one warp store different values to it with one instruction:\n    " +
                     describe_thread(w, u.writer) + " wrote it at " + where_pc(u.writer_pc) + "\n    " +
                     describe_thread(w, u.thread) + " writes it at " + where_pc(u.pc) +
                     "\n  Which lane's value a GPU keeps is not defined: give each lane its own element, or let one "
                     "lane store.",
                     FaultAt{u.thread, l.file, l.line});
}

// One shared-memory access of the running thread, checked against the others' accesses since
// the last barrier.
void shared_access(Worker& w, std::size_t offset, unsigned bytes, bool store, const void* pc) {
  Instr& I = w.instr_active ? *w.instr : instr_begin_block(w);
  check_uniform_store(w, true);
  const int t = w.current;
  auto unordered = [&](int u, std::uint32_t epoch) {
    return u >= 0 && u != t && !(u / 32 == t / 32 && I.wsync[static_cast<unsigned>(u)] > epoch);
  };
  const std::size_t end = offset + (bytes ? bytes : 1), last = (end - 1) / 4;
  for (std::size_t word = offset / 4; word <= last && word < I.shadow.size(); ++word) {
    // the bytes of this word the access covers
    const std::size_t lo = word * 4 < offset ? offset - word * 4 : 0, hi = end - word * 4 < 4 ? end - word * 4 : 4;
    const auto bits = static_cast<std::uint8_t>(((1u << hi) - 1) & ~((1u << lo) - 1));
    Written& wr = I.written[word];
    if (wr.block != I.block_stamp) wr = Written{I.block_stamp, 0};
    if (store) {
      wr.mask |= bits;
    } else if ((wr.mask & bits) != bits && !I.uninit.pending) {
      I.uninit = UninitRead{true, offset, bytes, t, pc};
    }
    Shadow& s = I.shadow[word];
    if (s.interval != I.interval) {
      s = Shadow{};
      s.interval = I.interval;
    }
    if (unordered(s.writer, s.wepoch)) {
      // the same store instruction by two lanes of one warp: checked once the value is there
      if (store && s.wpc == pc && s.writer / 32 == t / 32 && !I.uniform.pending) {
        std::uint32_t before = 0;
        std::memcpy(&before, w.shared + word * 4, 4);
        I.uniform = Instr::UniformStore{true, word * 4, bytes, before, s.writer, t, s.wpc, pc};
      } else {
        report_race(w, offset, bytes, s.writer, true, s.wpc, t, store, pc);
      }
    }
    const std::uint32_t epoch = I.wsync[static_cast<unsigned>(t)];
    if (store) {
      for (int r = 0; r < 2; ++r)
        if (unordered(s.reader[r], s.repoch[r]))
          report_race(w, offset, bytes, s.reader[r], false, s.rpc[r], t, true, pc);
      s.writer = t;
      s.wpc = pc;
      s.wepoch = epoch;
      s.reader[0] = s.reader[1] = -1;
    } else {
      const int slot = (s.reader[0] < 0 || s.reader[0] == t) ? 0 : (s.reader[1] < 0 || s.reader[1] == t) ? 1 : -1;
      if (slot >= 0) {
        s.reader[slot] = t;
        s.rpc[slot] = pc;
        s.repoch[slot] = epoch;
      }
    }
  }
}

}  // namespace

namespace {
void add_access(AccessStats& sum, const AccessStats& s) {
  sum.requests += s.requests;
  sum.sectors += s.sectors;
  sum.ideal_sectors += s.ideal_sectors;
  sum.excess_sectors += s.excess_sectors;
  sum.bytes += s.bytes;
  sum.lowest = std::min(sum.lowest, s.lowest);
  sum.highest = std::max(sum.highest, s.highest);
}
void add_banks(BankStats& sum, const BankStats& s) {
  sum.requests += s.requests;
  sum.wavefronts += s.wavefronts;
  sum.ideal_wavefronts += s.ideal_wavefronts;
  sum.max_ways = std::max(sum.max_ways, s.max_ways);
}
}  // namespace

void clear_launch_stats() {
  std::lock_guard<std::mutex> lock(stats_mutex);
  last_stats = MemoryStats{};
  last_shared_stats = SharedMemoryStats{};
}

void LaunchRecords::merge(Worker& w) {
  if (!w.instr || (w.instr->sites.empty() && w.instr->global_atomics == 0)) return;
  Instr& I = *w.instr;
  std::lock_guard<std::mutex> lock(m_);
  if (I.global_atomics && !atomic_address_) atomic_address_ = I.atomic_address;
  global_atomics_ += I.global_atomics;
  I.global_atomics = 0;
  I.atomic_address = 0;
  for (const Site& site : I.sites) {
    const SourceLine at = source_line(site.key.pc);  // several instructions of one line count together
    if (site.key.shared) {
      SharedLineStats& l = shared_lines_[{at.file, at.line, site.key.store}];
      if (l.bytes == 0) {
        l.file = at.file;
        l.line = at.line;
        l.store = site.key.store;
        l.bytes = site.bytes;
      }
      add_banks(l.stats, site.banks);
      if (!site.key.store) shared_load_bytes_ += site.shared_bytes;
      continue;
    }
    LineStats& l = lines_[{at.file, at.line, site.key.store}];
    if (l.bytes == 0) {
      l.file = at.file;
      l.line = at.line;
      l.store = site.key.store;
      l.bytes = site.bytes;
    }
    add_access(l.stats, site.stats);
  }
  I.sites.clear();
  I.site_index.clear();
  for (Instr::CachedSite& c : I.site_cache) c = Instr::CachedSite{};
}

void LaunchRecords::publish(bool instrumented) {
  if (!instrumented && lines_.empty() && shared_lines_.empty() && !global_atomics_) return;
  MemoryStats stats;
  SharedMemoryStats shared;
  shared.instrumented = true;
  stats.instrumented = true;
  for (auto& entry : lines_) {
    const LineStats& l = entry.second;
    add_access(l.store ? stats.stores : stats.loads, l.stats);
    stats.lines.push_back(l);
  }
  stats.global_atomics = global_atomics_;
  stats.atomic_address = atomic_address_;
  stats.shared_load_bytes = shared_load_bytes_;
  std::stable_sort(stats.lines.begin(), stats.lines.end(),
                   [](const LineStats& a, const LineStats& b) { return a.stats.sectors > b.stats.sectors; });
  for (auto& entry : shared_lines_) {
    const SharedLineStats& l = entry.second;
    add_banks(l.store ? shared.stores : shared.loads, l.stats);
    shared.lines.push_back(l);
  }
  std::stable_sort(shared.lines.begin(), shared.lines.end(),
                   [](const SharedLineStats& a, const SharedLineStats& b) {
                     return a.stats.wavefronts > b.stats.wavefronts;
                   });
  std::lock_guard<std::mutex> lock(stats_mutex);
  last_stats = std::move(stats);
  last_shared_stats = std::move(shared);
}

namespace {
// The running thread's access, waiting in its warp's list for the rest of its request.
void add_event(Worker& w, Instr& I, std::uintptr_t a, unsigned bytes, const SiteKey& key) {
  const unsigned t = static_cast<unsigned>(w.current);
  Instr::CachedSite& cached = I.site_cache[(reinterpret_cast<std::uintptr_t>(key.pc) >> 2 ^ key.shared) % 16];
  std::uint32_t site;
  if (cached.site != ~0u && cached.key == key) {
    site = cached.site;
  } else if (auto it = I.site_index.find(key); it != I.site_index.end()) {
    site = cached.site = it->second;
    cached.key = key;
  } else {
    site = static_cast<std::uint32_t>(I.sites.size());
    I.sites.push_back(Site{key, static_cast<int>(bytes), AccessStats{}, BankStats{}});
    I.site_index.emplace(key, site);
    I.kcount.resize(I.kcount.size() + w.n, 0);
    cached.key = key;
    cached.site = site;
  }
  const std::uint32_t k = I.kcount[std::size_t(site) * w.n + t]++;
  I.warp_events[t / 32].push_back(Event{site, k, bytes, t % 32, a});
}
}  // namespace

void on_access(std::uintptr_t a, std::size_t size, bool store, const void* pc, bool sized) {
  Worker* wp = current_worker();
  if (!wp || wp->current < 0 || !wp->g || !wp->g->site->instrumented) return;  // not an instrumented kernel's
  Worker& w = *wp;
  const auto bytes = static_cast<unsigned>(size);
  const auto sh = reinterpret_cast<std::uintptr_t>(w.shared);
  // A 2-, 4-, 8- or 16-byte access must start at a multiple of its size, as on a GPU; a range
  // (loadN: an aggregate's copy) is made element by element there, and has no such rule.
  const bool misaligned = sized && size > 1 && (a & (size - 1)) != 0;
  if (a + kSharedSlack >= sh && a < sh + kSharedArena + kSharedSlack) {
    if (misaligned) misaligned_access(w, a, bytes, bytes, nullptr, store, pc);
    const auto offset = static_cast<std::ptrdiff_t>(a - sh);
    if (!shared_in_bounds(w, offset, bytes)) shared_out_of_bounds(w, offset, bytes, store, pc);
    Instr& I = w.instr_active ? *w.instr : instr_begin_block(w);
    shared_access(w, static_cast<std::size_t>(offset), bytes, store, pc);
    add_event(w, I, a, bytes, SiteKey{pc, store, true});
    return;
  }
  if (a < 65536) global_out_of_bounds(w, a, bytes, store, pc);  // a null pointer, plus an index
  if (!in_arena(a)) {  // device memory is the arena's and the symbols'; the rest is the host's
    Allocation symbol;
    if (!in_symbol_range(a) || !symbol_holding(a, a + (bytes ? bytes : 1), &symbol)) return;
  }
  if (misaligned) misaligned_access(w, a, bytes, bytes, nullptr, store, pc);
  if (!global_in_bounds(w, a, bytes)) global_out_of_bounds(w, a, bytes, store, pc);
  Instr& I = w.instr_active ? *w.instr : instr_begin_block(w);
  add_event(w, I, a, bytes, SiteKey{pc, store, false});
}

}  // namespace wb_emu::internal

namespace wb_emu {
using namespace internal;

SharedMemoryStats last_launch_shared_stats() {
  std::lock_guard<std::mutex> lock(stats_mutex);
  return last_shared_stats;
}

MemoryStats last_launch_memory_stats() {
  std::lock_guard<std::mutex> lock(stats_mutex);
  return last_stats;
}
}  // namespace wb_emu

namespace wb_emu::detail {
using namespace internal;

void note_atomic(const volatile void* addr, unsigned bytes) {
  Worker* wp = current_worker();
  if (!wp || wp->current < 0 || !wp->g || !wp->g->site->instrumented) return;
  Worker& w = *wp;
  const auto a = reinterpret_cast<std::uintptr_t>(addr);
  const auto sh = reinterpret_cast<std::uintptr_t>(w.shared);
  if (a < sh || a + bytes > sh + kSharedArena) {
    if (!in_arena(a) && !in_symbol_range(a)) return;  // not device memory
    Instr& I = w.instr_active ? *w.instr : instr_begin_block(w);
    if (!I.global_atomics++) I.atomic_address = a;
    return;
  }
  Instr& I = w.instr_active ? *w.instr : instr_begin_block(w);
  const std::size_t offset = a - sh, end = offset + bytes;
  for (std::size_t word = offset / 4; word <= (end - 1) / 4; ++word) {
    const std::size_t lo = word * 4 < offset ? offset - word * 4 : 0, hi = end - word * 4 < 4 ? end - word * 4 : 4;
    Written& wr = I.written[word];
    if (wr.block != I.block_stamp) wr = Written{I.block_stamp, 0};
    wr.mask |= static_cast<std::uint8_t>(((1u << hi) - 1) & ~((1u << lo) - 1));
  }
}

void* name_dynamic_shared(const char* name) {
  Worker* w = current_worker();
  if (!w || !w->g) return nullptr;
  w->dynamic_name = name;
  return w->shared + w->dynamic_base;
}
}  // namespace wb_emu::detail
