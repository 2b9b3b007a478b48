/// \file
/// \brief The CPU backend's instrumented mode: pointers and shared arrays that record each access.
///
/// A kernel file built instrumented (`wb-emu-rewrite --instrument`, compile definition
/// WB_EMU_INSTRUMENT=1) includes this header, and the rewriter changes its declarations:
///   - a pointer parameter of a `__global__` or `__device__` function, `const float* __restrict__ in`,
///     becomes `::wb_emu::gptr<const float> in`;
///   - `__shared__ T name[dims];` becomes a `sview` over the block's storage (scalars and arrays of
///     structs stay plain references: not recorded);
///   - `extern __shared__ T name[];` becomes a `gptr<T>`;
///   - `reinterpret_cast<U*>(p)` of a gptr or sview gives a `gptr<U>`;
///   - launches pass `instrumented` in their LaunchSite.
/// `p[i]` (for a gptr or an sview) is a `ref<T>`: converting it to T records a load, assigning
/// to it a store, `+=` & co. both, each with the file and line where the index was written.
/// An access whose address is not a multiple of its type's alignment (a float4 load from an
/// address that is not 16-byte aligned) is a kernel fault, as a GPU's "misaligned address".
/// The runtime sorts each access by address: global memory goes to the launch's coalescing
/// statistics (last_launch_memory_stats()), shared memory to the race check, the thread's own
/// stack is ignored. An access out of bounds is a kernel fault before it happens: a shared address
/// in no `__shared__` array and not in the launch's dynamic region, a global one outside every
/// cudaMalloc/cudaMallocHost allocation; an sview also checks each index against its extent.
///
/// What is not recorded: `p->member` (gives a raw pointer), atomics (never part of a race),
/// shared scalars and arrays of structs, anything reached through a raw pointer. `*p` is
/// recorded with line 0. `&p[i]` is a gptr (atomicAdd & co. and __ldg take it). There is no
/// implicit conversion to a raw pointer (`static_cast<T*>(p)` gives one, unrecorded): write
/// `auto row = in + r * n;` rather than `const float* row = ...`. `p[i].x` does not compile for
/// a struct element: copy the element out (`float4 v = p[i];`). `auto v = p[i];` keeps a ref,
/// so each later use of `v` is a load.
#pragma once

#include <wb_emu/runtime.hpp>

#include <cstddef>
#include <type_traits>

namespace wb_emu {
namespace detail {
/// Records one access by the running kernel thread (nothing outside a kernel). An address that is
/// not a multiple of `align` (the type's alignment: 16 for a float4, as a GPU requires), in no
/// allocation, or past the shared memory the block has, is a kernel fault (never returns).
/// `type` names a vector type in messages ("float4"), or is nullptr.
void record_access(const volatile void* addr, unsigned bytes, bool store, const char* file, int line,
                   unsigned align = 1, const char* type = nullptr);

/// An atomic through a recorded pointer: not recorded (never part of a race), but the shared bytes
/// it touches count as written (a counter cleared by atomicExch is not read unwritten later).
void note_atomic(const volatile void* addr, unsigned bytes);

/// The name of a built-in vector type, for messages ("float4"); nullptr for other types.
template <class T>
constexpr const char* vector_name() {
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_same<U, float2>::value) return "float2";
  else if constexpr (std::is_same<U, float4>::value) return "float4";
  else if constexpr (std::is_same<U, double2>::value) return "double2";
  else if constexpr (std::is_same<U, int2>::value) return "int2";
  else if constexpr (std::is_same<U, int4>::value) return "int4";
  else return nullptr;
}
/// Names the launch's dynamic shared memory (`extern __shared__ T name[];`) in messages and
/// returns its start (the end of the region when the launch gave none, so any access is past it).
void* name_dynamic_shared(const char* name);

/// The subscripts of a `__shared__` array written so far, kept so that an index past its extent
/// can be reported with every index ("tile[3][40]"), and the first index that was out of range.
struct SharedSubscript {
  const char* name = nullptr;
  std::ptrdiff_t index[4] = {0, 0, 0, 0};  ///< the first 4 indices (more are shown as [..])
  int count = 0;                           ///< how many indices were written
  int rank = 0;                            ///< the array's number of dimensions
  int bad = -1;                            ///< which index is out of range (0 is the first), -1: none
  std::size_t extent = 0;                  ///< the extent that index went past
};
/// A slot (one of a few per kernel thread, reused in turn) that keeps an out-of-range
/// subscript until the element is read or written.
SharedSubscript* keep_bad_subscript(const SharedSubscript& s);
/// The fault for an out-of-range subscript of a `__shared__` array: "read of tile[3][40]: ...".
[[noreturn]] void shared_index_fault(const SharedSubscript& s, const char* access, const char* file, int line);
}  // namespace detail

/// An index, with where it was written: `p[i]` converts `i` to it, so the default arguments
/// capture the line of the subscript.
struct Index {
  std::ptrdiff_t i;
  const char* file;
  int line;
  template <class I, std::enable_if_t<std::is_integral<I>::value || std::is_enum<I>::value, int> = 0>
  Index(I v, const char* f = __builtin_FILE(), int l = __builtin_LINE())  // NOLINT: implicit on purpose
      : i(static_cast<std::ptrdiff_t>(v)), file(f), line(l) {}
};

template <class T>
class gptr;

/// One element of recorded memory: a load when read, a store when written.
template <class T>
class ref {
 public:
  using value_type = std::remove_cv_t<T>;
  ref(T* p, const char* file, int line, const detail::SharedSubscript* bad = nullptr)
      : p_(p), file_(file), line_(line), bad_(bad) {}
  ref(const ref&) = default;

  value_type load() const {
    if (bad_) detail::shared_index_fault(*bad_, "read", file_, line_);
    detail::record_access(p_, sizeof(T), false, file_, line_, alignof(T), detail::vector_name<T>());
    return *p_;
  }
  void store(const value_type& v) const {
    if (bad_) detail::shared_index_fault(*bad_, "write", file_, line_);
    detail::record_access(p_, sizeof(T), true, file_, line_, alignof(T), detail::vector_name<T>());
    *p_ = v;
  }
  operator value_type() const { return load(); }  // NOLINT: implicit on purpose
  const ref& operator=(const value_type& v) const {
    store(v);
    return *this;
  }
  const ref& operator=(const ref& o) const {
    store(o.load());
    return *this;
  }
#define WB_EMU_REF_OP(op)                             \
  const ref& operator op##=(const value_type& v) const { \
    value_type x = load();                            \
    x op## = v;                                       \
    store(x);                                         \
    return *this;                                     \
  }
  WB_EMU_REF_OP(+)
  WB_EMU_REF_OP(-)
  WB_EMU_REF_OP(*)
  WB_EMU_REF_OP(/)
  WB_EMU_REF_OP(%)
  WB_EMU_REF_OP(&)
  WB_EMU_REF_OP(|)
  WB_EMU_REF_OP(^)
  WB_EMU_REF_OP(<<)
  WB_EMU_REF_OP(>>)
#undef WB_EMU_REF_OP
  const ref& operator++() const { return *this += value_type(1); }
  const ref& operator--() const { return *this -= value_type(1); }
  value_type operator++(int) const {
    value_type x = load();
    store(x + value_type(1));
    return x;
  }
  value_type operator--(int) const {
    value_type x = load();
    store(x - value_type(1));
    return x;
  }
  /// The element's address, still recorded through.
  gptr<T> operator&() const { return gptr<T>(p_); }

 private:
  T* p_;
  const char* file_;
  int line_;
  const detail::SharedSubscript* bad_;  // an index of a __shared__ array out of range: fault on use
};

/// A pointer whose element accesses are recorded (see the file comment).
template <class T>
class gptr {
 public:
  using element_type = T;
  gptr() = default;
  gptr(std::nullptr_t) {}  // NOLINT
  template <class U, std::enable_if_t<std::is_convertible<U*, T*>::value, int> = 0>
  gptr(U* p) : p_(p) {}  // NOLINT: kernels are called with raw pointers
  template <class U, std::enable_if_t<std::is_convertible<U*, T*>::value, int> = 0>
  gptr(gptr<U> o) : p_(o.get()) {}  // NOLINT

  T* get() const { return p_; }
  explicit operator T*() const { return p_; }
  explicit operator bool() const { return p_ != nullptr; }

  ref<T> operator[](Index i) const { return ref<T>(p_ + i.i, i.file, i.line); }
  ref<T> operator*() const { return ref<T>(p_, nullptr, 0); }
  T* operator->() const { return p_; }

  template <class I, std::enable_if_t<std::is_integral<I>::value, int> = 0>
  gptr operator+(I n) const { return gptr(p_ + n); }
  template <class I, std::enable_if_t<std::is_integral<I>::value, int> = 0>
  friend gptr operator+(I n, gptr p) { return gptr(p.p_ + n); }
  template <class I, std::enable_if_t<std::is_integral<I>::value, int> = 0>
  gptr operator-(I n) const { return gptr(p_ - n); }
  std::ptrdiff_t operator-(gptr o) const { return p_ - o.p_; }
  template <class I, std::enable_if_t<std::is_integral<I>::value, int> = 0>
  gptr& operator+=(I n) { p_ += n; return *this; }
  template <class I, std::enable_if_t<std::is_integral<I>::value, int> = 0>
  gptr& operator-=(I n) { p_ -= n; return *this; }
  gptr& operator++() { ++p_; return *this; }
  gptr& operator--() { --p_; return *this; }
  gptr operator++(int) { gptr o = *this; ++p_; return o; }
  gptr operator--(int) { gptr o = *this; --p_; return o; }

  friend bool operator==(gptr a, gptr b) { return a.p_ == b.p_; }
  friend bool operator!=(gptr a, gptr b) { return a.p_ != b.p_; }
  friend bool operator<(gptr a, gptr b) { return a.p_ < b.p_; }
  friend bool operator>(gptr a, gptr b) { return a.p_ > b.p_; }
  friend bool operator<=(gptr a, gptr b) { return a.p_ <= b.p_; }
  friend bool operator>=(gptr a, gptr b) { return a.p_ >= b.p_; }
  friend bool operator==(gptr a, std::nullptr_t) { return a.p_ == nullptr; }
  friend bool operator!=(gptr a, std::nullptr_t) { return a.p_ != nullptr; }

 private:
  T* p_ = nullptr;
};

/// A `__shared__` array (A is `E[N]`, maybe multi-dimensional) whose element accesses are
/// recorded, and whose indices are checked against its extents: an index out of range is a kernel
/// fault when the element is read or written ("read of tile[3][40]: the second index is past its
/// extent 33"), or at once for an array of structs, whose elements are not recorded.
template <class A>
class sview {
  static_assert(std::is_array<A>::value, "sview is for arrays");
  using E = std::remove_extent_t<A>;
  template <class>
  friend class sview;

 public:
  sview(A& a, const char* name) : a_(&a) {
    path_.name = name;
    path_.rank = static_cast<int>(std::rank<A>::value);
  }
  decltype(auto) operator[](Index i) const {
    detail::SharedSubscript path = path_;
    if (path.count < 4) path.index[path.count] = i.i;
    constexpr std::size_t extent = std::extent<A>::value;
    if (path.bad < 0 && (i.i < 0 || static_cast<std::size_t>(i.i) >= extent)) {
      path.bad = path.count;
      path.extent = extent;
    }
    ++path.count;
    if constexpr (std::is_array<E>::value) {
      return sview<E>((*a_)[i.i], path);
    } else if constexpr (std::is_class<E>::value) {
      if (path.bad >= 0) detail::shared_index_fault(path, "access", i.file, i.line);
      return static_cast<E&>((*a_)[i.i]);  // structs: not recorded
    } else {
      return ref<E>(&(*a_)[i.i], i.file, i.line, path.bad < 0 ? nullptr : detail::keep_bad_subscript(path));
    }
  }
  gptr<E> decay() const { return gptr<E>(&(*a_)[0]); }
  template <class U, std::enable_if_t<std::is_convertible<E*, U*>::value, int> = 0>
  operator gptr<U>() const { return gptr<U>(&(*a_)[0]); }  // NOLINT: arrays decay
  explicit operator E*() const { return &(*a_)[0]; }
  template <class I, std::enable_if_t<std::is_integral<I>::value, int> = 0>
  gptr<E> operator+(I n) const { return decay() + n; }
  ref<E> operator*() const { return *decay(); }

 private:
  sview(A& a, const detail::SharedSubscript& path) : a_(&a), path_(path) {}
  A* a_;
  detail::SharedSubscript path_;
};

/// What an instrumented `__shared__` declaration binds its name to.
template <class A>
decltype(auto) instrument_shared(A& a, const char* name) {
  if constexpr (std::is_array<A>::value) {
    return sview<A>(a, name);
  } else {
    return static_cast<A&>(a);  // scalars: not recorded
  }
}

template <class T>
gptr<T> dynamic_shared_named(const char* name) {
  return gptr<T>(static_cast<T*>(detail::name_dynamic_shared(name)));
}

template <class T>
struct is_recorded : std::false_type {};
template <class T>
struct is_recorded<gptr<T>> : std::true_type {};
template <class A>
struct is_recorded<sview<A>> : std::true_type {};

template <class T>
gptr<T> as_gptr(gptr<T> p) { return p; }
template <class A>
auto as_gptr(const sview<A>& v) { return v.decay(); }

/// `reinterpret_cast` in an instrumented file: a gptr or an sview cast to `U*` stays recorded.
template <class To, class From>
decltype(auto) instrumented_cast(From&& f) {
  using F = std::remove_cv_t<std::remove_reference_t<From>>;
  if constexpr (is_recorded<F>::value && std::is_pointer<To>::value) {
    return gptr<std::remove_pointer_t<To>>(reinterpret_cast<To>(as_gptr(f).get()));
  } else {
    return reinterpret_cast<To>(f);
  }
}
}  // namespace wb_emu

// Atomics through a recorded pointer act on the raw memory (atomics are not recorded; the shared
// bytes they touch count as written).
#define WB_EMU_GPTR_ATOMIC(name)                                                          \
  template <class T, class... A>                                                          \
  auto name(::wb_emu::gptr<T> p, A... a)->decltype(name(p.get(), a...)) {                \
    ::wb_emu::detail::note_atomic(p.get(), sizeof(T));                                    \
    return name(p.get(), a...);                                                           \
  }
WB_EMU_GPTR_ATOMIC(atomicAdd)
WB_EMU_GPTR_ATOMIC(atomicSub)
WB_EMU_GPTR_ATOMIC(atomicAnd)
WB_EMU_GPTR_ATOMIC(atomicOr)
WB_EMU_GPTR_ATOMIC(atomicXor)
WB_EMU_GPTR_ATOMIC(atomicExch)
WB_EMU_GPTR_ATOMIC(atomicMax)
WB_EMU_GPTR_ATOMIC(atomicMin)
WB_EMU_GPTR_ATOMIC(atomicCAS)
WB_EMU_GPTR_ATOMIC(atomicInc)
WB_EMU_GPTR_ATOMIC(atomicDec)
#undef WB_EMU_GPTR_ATOMIC

// Cache-hinted loads and stores through a recorded pointer are recorded, at the call's line.
#define WB_EMU_GPTR_LOAD(name)                                                                           \
  template <class T>                                                                                     \
  inline std::remove_cv_t<T> name(::wb_emu::gptr<T> p, const char* f = __builtin_FILE(),                 \
                                  int l = __builtin_LINE()) {                                            \
    return ::wb_emu::ref<T>(p.get(), f, l).load();                                                       \
  }
#define WB_EMU_GPTR_STORE(name)                                                                          \
  template <class T>                                                                                     \
  inline void name(::wb_emu::gptr<T> p, std::remove_cv_t<T> v, const char* f = __builtin_FILE(),         \
                   int l = __builtin_LINE()) {                                                           \
    ::wb_emu::ref<T>(p.get(), f, l).store(v);                                                            \
  }
WB_EMU_GPTR_LOAD(__ldg)
WB_EMU_GPTR_LOAD(__ldcs)
WB_EMU_GPTR_LOAD(__ldcg)
WB_EMU_GPTR_LOAD(__ldlu)
WB_EMU_GPTR_STORE(__stcs)
WB_EMU_GPTR_STORE(__stcg)
WB_EMU_GPTR_STORE(__stwt)
#undef WB_EMU_GPTR_LOAD
#undef WB_EMU_GPTR_STORE
