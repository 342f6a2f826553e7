// A fingerprint of a variant's rules: a hash of everything that decides which moves are legal
// and how games end (board, pieces and their compiled moves, promotion, drops, repetition, the
// ply-cap rule, the start position), but not of names or descriptions. Models, replay chunks and
// run state record it beside the variant's name, so that a model trained on an edited
// micro.yaml is not taken for a micro shogi model.
#pragma once
#include <cstdint>
#include <string>

#include "game/variant.h"

namespace poppy::game {

// The canonical text the fingerprint hashes (one rule per line), for tests and for explaining a
// mismatch.
std::string rulesText(const Variant& v);

// XXH64 of rulesText(v); never 0 (0 means "not recorded" in older files).
uint64_t rulesFingerprint(const Variant& v);

// 16 lower-case hex digits, as models and run state write it.
std::string fingerprintHex(uint64_t fingerprint);
// Parses fingerprintHex's output; returns false for anything else.
bool parseFingerprintHex(const std::string& text, uint64_t& fingerprint);

}  // namespace poppy::game
