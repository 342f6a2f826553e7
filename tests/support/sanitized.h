// Whether this test program runs under a sanitizer (cmake/sanitizers.cmake defines
// POPPY_SANITIZED in those builds). The heaviest randomised checks (random games that make and
// unmake every legal move at every ply) then play a quarter of their games: ASan and UBSan make
// them 5-10 times slower, and the optimised build of the same tests plays all of them.
#pragma once
#include <algorithm>

namespace poppy::testing {

#ifdef POPPY_SANITIZED
inline constexpr int kSanitizedShare = 4;
#else
inline constexpr int kSanitizedShare = 1;
#endif

// n in the optimised build; n / 4 (at least 1) under a sanitizer.
inline constexpr int underSanitizers(int n) { return std::max(1, n / kSanitizedShare); }

}  // namespace poppy::testing
