#include "game/rules_fingerprint.h"

#include <xxhash.h>

#include <cstdio>
#include <sstream>

namespace poppy::game {

std::string rulesText(const Variant& v) {
  std::ostringstream out;
  out << "board " << v.files << "x" << v.ranks << " players " << v.numPlayers << "\n";
  for (size_t i = 0; i < v.faces.size(); ++i) {
    const Face& f = v.faces[i];
    out << "face " << i << " " << f.token() << " betza " << f.betza << " flip " << f.flipTo << " hand " << f.handKind
        << " royal " << f.royal << " moves";
    for (const MoveVector& m : f.moves) out << " " << m.dx << "," << m.dy << "," << m.range;
    // Written only where set, as below.
    if (f.hasPowers()) out << " area " << f.areaSteps << " burn " << f.burnCount << " igui " << f.iguiCount;
    if (f.freezes) out << " freezes";
    if (f.reverts) out << " reverts";
    out << "\n";
  }
  for (const HandKind& h : v.handKinds)
    out << "hand " << h.letter << (h.prime ? "'" : "") << " " << h.setupFace << " " << h.otherFace << "\n";
  out << "start " << v.startSfen << "\n";
  out << "promotion " << int(v.promotion) << " zone " << v.zoneRanks << " mandatory " << v.promotionMandatory
      << " dead " << v.forcedOnDeadSquare << "\n";
  out << "drops " << v.dropsEnabled << " either " << v.dropEitherFace << " dead " << v.dropOnDeadSquareForbidden << " "
      << v.deadSquareDropFaces << " nomate " << v.noDropMateFaces << " perfile";
  for (int n : v.maxPerFile) out << " " << n;
  out << "\n";
  out << "repetition " << v.repetitionCount << " " << int(v.repetitionResult) << " perpetual " << v.perpetualCheckLoses
      << "\n";
  // Written only where set, so the fingerprints of the variants that predate them stay as they were.
  if (v.royalCapture || v.bareKingRule || v.lionFaces || v.promoteOnEntryOrCapture)
    out << "royalcapture " << v.royalCapture << " bareking " << v.bareKingRule << " " << v.bareKingWeakFaces
        << " lions " << v.lionFaces << " " << v.lionCheapFaces << " entryorcapture " << v.promoteOnEntryOrCapture
        << "\n";
  if (v.burnImmuneFaces) out << "burnimmune " << v.burnImmuneFaces << "\n";
  if (v.noSkipAfterSkip) out << "noskipafterskip\n";
  if (v.stalemateDraws) out << "stalematedraws\n";
  if (v.checksToWin) out << "checkstowin " << v.checksToWin << "\n";
  if (v.movesAsPieceBehind) out << "movesaspiecebehind\n";
  if (v.kingsInHand) out << "kingsinhand\n";
  if (v.dropOnlyToCheckFaces) out << "droponlytocheck " << v.dropOnlyToCheckFaces << "\n";
  for (size_t f = 0; f < v.dropMaxRank.size(); ++f)
    if (v.dropMaxRank[f]) out << "dropmaxrank " << f << " " << v.dropMaxRank[f] << "\n";
  // Not written: Variant::perpetualAttackLoses. It only decides who loses a repetition that
  // one side kept up by attacking, not a move, an input or a position, and the chu model shipped
  // before it (models/chu) plays the same game with it.
  out << "plycap " << int(v.plyCapRule) << " threshold " << v.impasseThreshold << " points";
  for (int n : v.impassePoints) out << " " << n;
  out << "\n";
  return out.str();
}

uint64_t rulesFingerprint(const Variant& v) {
  const std::string text = rulesText(v);
  const uint64_t h = XXH64(text.data(), text.size(), 0);
  return h == 0 ? 1 : h;
}

std::string fingerprintHex(uint64_t fingerprint) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(fingerprint));
  return buf;
}

bool parseFingerprintHex(const std::string& text, uint64_t& fingerprint) {
  if (text.size() != 16) return false;
  uint64_t value = 0;
  for (char c : text) {
    int digit;
    if (c >= '0' && c <= '9') digit = c - '0';
    else if (c >= 'a' && c <= 'f') digit = c - 'a' + 10;
    else return false;
    value = value << 4 | uint64_t(digit);
  }
  fingerprint = value;
  return true;
}

}  // namespace poppy::game
