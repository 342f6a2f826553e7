// Kings in hand (Variant::kingsInHand; unashogi, docs/RULES.md "Unashogi"): both kings start in
// hand and are dropped like any piece. Until a side's king stands on the board that side may
// not capture or promote, so its pieces threaten nothing: they give no check, guard no square
// against the enemy king, and a move that could only end by promoting (a pawn to the last rank)
// is not open to it. A side whose king is in hand can never be in check. A king may not be
// dropped where it would be attacked, as it may not step there.
#include "game/position.h"

namespace poppy::game {

bool Position::disarmed(Color c) const { return variant_->kingsInHand && kingSq_[c] < 0; }

bool Position::kingDropIsSafe(Square to) const { return !attackedBy(to, opponent(side_)); }

}  // namespace poppy::game
