/// \file
/// \brief Misalignment cases for a kernel with several pointers: each pointer off a 16-byte
/// boundary on its own, then all of them together, so that a vector path which checks the
/// alignment of only some of its pointers is caught (issue 20).
///
/// A case is applied through the guard zone: a wb::DeviceBuffer made with
/// `m.guard("B")` guard elements has `data()` that many elements past the (256-byte aligned)
/// allocation's default guard, so the array itself starts misaligned while both guard zones stay
/// in place and writes before or after it are still caught. A grader writes one loop:
/// \code
///   const wb::Misalignment m = GENERATE(from_range(wb::misalignments({"A", "B", "C"})));
///   wb::DeviceBuffer<float> dA(a, m.guard("A")), dB(b, m.guard("B")), dC(n, m.guard("C"));
///   ... context += ", " + m.context;
/// \endcode
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "wb/buffer.hpp"

namespace wb {

/// One misalignment case: how many elements each named pointer starts past a 16-byte boundary.
struct Misalignment {
  std::vector<std::string> names;  ///< the kernel's pointers, in its parameter order
  std::vector<int> offsets;        ///< elements past a 16-byte boundary, one per name
  std::size_t element_bytes = 4;   ///< sizeof an element (4: float)
  std::string context;             ///< e.g. "B starts 4 bytes past a 16-byte boundary"

  /// Elements `name` starts past a 16-byte boundary (0 for a name this case does not list, so a
  /// default-constructed Misalignment is the aligned case).
  int offset(const std::string& name) const {
    for (std::size_t i = 0; i < names.size(); ++i)
      if (names[i] == name) return offsets[i];
    return 0;
  }
  /// Guard elements to give `name`'s DeviceBuffer so that its data() starts offset(name)
  /// elements past a 16-byte boundary (the guard zone before it grows by as much).
  std::size_t guard(const std::string& name) const {
    return DeviceBuffer<unsigned char>::default_guard + std::size_t(offset(name));
  }
  /// True when at least one pointer is misaligned.
  bool any() const {
    for (int o : offsets)
      if (o) return true;
    return false;
  }
};

namespace detail {
inline std::string joined(const std::vector<std::string>& names) {
  std::string s;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i) s += i + 1 == names.size() ? " and " : ", ";
    s += names[i];
  }
  return s;
}
}  // namespace detail

/// The misalignment cases for a kernel whose pointers are `names`: each pointer alone, offset by
/// each of `offsets` elements (the others aligned), then all of them together, offset by each of
/// `offsets`. With floats the default offsets put a pointer 4, 8 and 12 bytes past a 16-byte
/// boundary. Every case's context names the misaligned pointer(s) in the kernel's terms.
inline std::vector<Misalignment> misalignments(const std::vector<std::string>& names, std::size_t element_bytes = 4,
                                               const std::vector<int>& offsets = {1, 2, 3}) {
  if (names.empty()) throw std::invalid_argument("wb::misalignments: no pointers named");
  for (int o : offsets)
    if (o <= 0 || (std::size_t(o) * element_bytes) % 16 == 0)
      throw std::invalid_argument("wb::misalignments: offset " + std::to_string(o) +
                                  " does not leave a pointer off a 16-byte boundary");
  auto bytes = [&](int o) { return std::to_string(std::size_t(o) * element_bytes); };
  std::vector<Misalignment> cases;
  for (std::size_t p = 0; p < names.size(); ++p)
    for (int o : offsets) {
      Misalignment m{names, std::vector<int>(names.size(), 0), element_bytes, {}};
      m.offsets[p] = o;
      m.context = names[p] + " starts " + bytes(o) + " bytes past a 16-byte boundary";
      std::vector<std::string> rest;
      for (std::size_t q = 0; q < names.size(); ++q)
        if (q != p) rest.push_back(names[q]);
      if (!rest.empty()) m.context += "; " + detail::joined(rest) + (rest.size() > 1 ? " are" : " is") + " aligned";
      cases.push_back(m);
    }
  if (names.size() > 1)
    for (int o : offsets) {
      Misalignment m{names, std::vector<int>(names.size(), o), element_bytes, {}};
      m.context = detail::joined(names) + (names.size() == 2 ? " both start " : " all start ") + bytes(o) + " bytes past a 16-byte boundary";
      cases.push_back(m);
    }
  return cases;
}

}  // namespace wb
