// An immutable description of one shogi variant: board, pieces, rules, and the move tables
// compiled from them. Loaded from configs/variants/NAME.yaml by variant_loader.h.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "game/betza.h"
#include "game/types.h"

namespace poppy::game {

// One side of a physical piece. Micro shogi's gold is face "G"; its other side, the rook, is
// face "+G". Captured pieces go to hand as their physical piece (handKind).
struct Face {
  std::string name;     // "gold", "rook"
  char letter = '?';    // upper-case SFEN letter of the physical piece
  bool prime = false;   // the letter is followed by ' (mitsugumi's 27th piece, the vice general Z')
  bool promoted = false;  // written with a leading '+'
  std::string betza;
  std::vector<MoveVector> moves;  // from sente's view: the fast tables below
  std::vector<SpecialMove> special;  // XBetza powers the tables cannot hold (special_moves.h)
  // Powers no notation covers (game/powers.h; mitsugumi shogi's fire demon and its kin); 0 =
  // none. An area move is up to areaSteps king steps through empty squares, ending at the
  // first capture; burnCount is how many enemies next to its destination a piece may capture
  // after moving elsewhere; iguiCount how many next to it it may capture without moving.
  int areaSteps = 0;
  int burnCount = 0;
  int iguiCount = 0;
  bool hasPowers() const { return areaSteps > 0 || burnCount > 0 || iguiCount > 0; }
  // Freezing (game/freezing.cpp, mitsugumi's heavenly tetrarch): enemy pieces next to it,
  // other than freezers, cannot move and attack nothing.
  bool freezes = false;
  int flipTo = -1;      // the other face, -1 when the piece has one face
  // A passing state rather than a promotion (whale shogi's dolphin on the far rank, which moves
  // once as a bishop): every move of a piece showing this face turns it back to its other face.
  bool reverts = false;
  int handKind = -1;    // index into Variant::handKinds: where the captor puts it (whale shogi's
                        // porpoise: the killer whale's kind; `captured_as`)
  bool royal = false;
  // "P", "+P", "Z'": as SFEN writes it for sente.
  std::string token() const { return (promoted ? "+" : "") + letterToken(); }
  std::string letterToken() const { return prime ? std::string(1, letter) + '\'' : std::string(1, letter); }
};

// A physical piece as it sits in hand.
struct HandKind {
  char letter = '?';
  bool prime = false;  // as Face::prime
  int setupFace = -1;   // the face a plain drop shows
  int otherFace = -1;   // the flipped face, -1 if none
};

enum class PromotionKind {
  kNone,       // pieces never flip
  kZone,       // shogi: optional promotion on entering, leaving or moving inside the far ranks
  kOnCapture,  // micro shogi: a piece that captures flips, always
  kEveryMove,  // kyoto shogi: a piece flips after every move
};

enum class RepetitionResult {
  kDraw,            // the default (docs/RULES.md)
  kLossForRepeater,  // tori shogi: the player whose move completes the repetition loses
  kIllegal           // yari shogi: a move that would complete the repetition is not legal
};

enum class PlyCapRule {
  kDraw,           // default
  kImpassePoints,  // shogi: count points (majors 5, others 1); below the threshold loses
};

class Variant {
 public:
  // Rules, as loaded.
  std::string name;
  std::string description;
  std::string sourcePath;
  int files = 0;
  int ranks = 0;
  // 2, or 4 (yonin shogi, game/four_players.cpp): then colour c is the army that starts on the
  // board's side c quarter turns clockwise from sente's (0 south, 1 west, 2 north, 3 east), and
  // the board is square.
  int numPlayers = 2;
  // Four players: the face a mated player's king turns into, a blocker that nothing may take or
  // pass (`turned_king` in the variant file; no moves, never in hand); -1 otherwise.
  int turnedKingFace = -1;
  std::vector<Face> faces;
  std::vector<HandKind> handKinds;  // in canonical SFEN hand order
  std::string startSfen;
  // rulesFingerprint(*this) (game/rules_fingerprint.h), set by the loader once the rules are
  // complete; 0 for a Variant built by hand.
  uint64_t fingerprint = 0;

  PromotionKind promotion = PromotionKind::kNone;
  int zoneRanks = 0;
  // kZone, chu shogi (as lishogi): a piece may promote only on a move that enters the zone, or
  // that captures with the move starting or ending in it, or that leaves it where it could never
  // move again. Otherwise (shogi) any move starting or ending in the zone may promote.
  bool promoteOnEntryOrCapture = false;
  bool promotionMandatory = false;     // zone: every move that may promote must
  bool forcedOnDeadSquare = false;     // zone: a move may not leave a piece where it can never move

  bool dropsEnabled = false;
  bool dropEitherFace = false;         // micro, kyoto: a drop may show either side
  bool dropOnDeadSquareForbidden = false;
  uint64_t deadSquareDropFaces = 0;    // faces the dead-square drop rule applies to
  std::vector<int> maxPerFile;         // per face: a drop needs fewer than this many of that face
                                       // on the file (nifu is 1 for P); 0 = no limit
  uint64_t noDropMateFaces = 0;        // faces that may not be dropped to give mate
  uint64_t dropOnlyToCheckFaces = 0;   // hand shogi's assassins: dropped only where they give check
  std::vector<int> dropMaxRank;        // per face: dropped only on the dropper's ranks 1..this (0: any)

  // Royal capture (chu shogi): moving into or staying in check is legal, and a side that has
  // lost every royal piece has lost (game/royal_capture.cpp). Otherwise a variant has exactly
  // one royal piece a side and a move may not leave it attacked.
  bool royalCapture = false;
  // Bare king (chu shogi, as lishogi): a side left with only its royal piece loses, when the
  // other side keeps more than its royal and the pieces in bareKingWeakFaces (royal_capture.cpp).
  bool bareKingRule = false;
  uint64_t bareKingWeakFaces = 0;
  // Chu shogi's lion trading rules (game/lion_rules.cpp); lionFaces is 0 where there are none.
  // A lion may not take a protected lion two squares away, unless its first step took a piece
  // not in lionCheapFaces; after a lion is taken by a non-lion, the other side's non-lions may
  // take a lion only on that square, on the next move.
  uint64_t lionFaces = 0;
  uint64_t lionCheapFaces = 0;
  // Faces that burning (Face::burnCount) never captures: mitsugumi's fire demons.
  uint64_t burnImmuneFaces = 0;
  // Faces with Face::freezes (bit per face), set by compile(); 0 where nothing freezes, so the
  // freezing tests cost one comparison.
  uint64_t freezerFaces = 0;
  // Mitsugumi: a turn skip (a pass that does not promote) is illegal right after the
  // opponent's move was one.
  bool noSkipAfterSkip = false;

  // `full_set_at_start` (variants without drops, chu): per colour and hand kind (the physical
  // piece), how many the start position has, the most a legal position can have. Empty: not
  // checked.
  std::vector<int> maxPiecesPerSide;
  // `full_set_at_start` with drops (shogi, micro, ...): per hand kind (the physical piece), how
  // many the start position has on the board and in hand, both sides together: captures only
  // move pieces between the sides, so no legal position has more (SFEN refuses 19 shogi pawns).
  // Empty: not checked.
  std::vector<int> maxPiecesInGame;

  int repetitionCount = 4;
  RepetitionResult repetitionResult = RepetitionResult::kDraw;
  bool perpetualCheckLoses = true;
  // With perpetualCheckLoses: a move also counts as a check for that rule when the piece it
  // moved attacks an enemy piece where it stands (lishogi's chushogi; game/perpetual_attack.cpp).
  bool perpetualAttackLoses = false;
  // No legal move while not in check: a draw (yari shogi) instead of a loss (shogi).
  bool stalemateDraws = false;
  // Miburi shogi: the first side to give this many checks wins (game/check_count.cpp); 0: off.
  int checksToWin = 0;
  // An-nan shogi: a piece moves as the friendly piece directly behind it, if any
  // (game/borrowed_moves.cpp).
  bool movesAsPieceBehind = false;
  // Unashogi: kings start in hand and are dropped like other pieces; a side whose king is not on
  // the board may not capture or promote, and its pieces attack nothing (game/king_in_hand.cpp).
  bool kingsInHand = false;

  PlyCapRule plyCapRule = PlyCapRule::kDraw;
  std::vector<int> impassePoints;      // per face
  int impasseThreshold = 24;

  // Builds the move tables below; called once by the loader after the rules are filled in.
  void compile();

  // Faces with special moves (bit per face): XBetza powers or the powers of game/powers.h. 0
  // for every variant written in plain Betza, so move generation and attack tests skip the
  // special path with one test.
  uint64_t specialFaces() const { return specialFaces_; }

  // Geometry.
  int numSquares() const { return files * ranks; }
  int rankOf(Square s) const { return s / files; }
  int colOf(Square s) const { return s % files; }      // 0 = file `files`, sente's left
  int fileNumber(Square s) const { return files - colOf(s); }  // USI file number
  Square square(int col, int rank) const { return rank * files + col; }
  // Quarter turns clockwise from sente's view to colour c's: 2 for gote, 1 2 3 for yonin's west,
  // north and east.
  int quarterTurns(Color c) const { return c * 4 / numPlayers; }
  // Ranks between s and the far edge of the board as colour c looks at it (0 on its last rank).
  int distanceToFarEdge(Color c, Square s) const;
  // The line along which colour c's pieces move forward through s (the file, for sente and
  // gote): where nifu counts pawns.
  int forwardLineOf(Color c, Square s) const { return quarterTurns(c) % 2 ? rankOf(s) : colOf(s); }
  // -1 when unknown. `prime`: the letter is followed by ' (Face::prime).
  int faceIndex(char upperLetter, bool promoted, bool prime = false) const;
  int handKindOf(char upperLetter, bool prime = false) const;
  // The first royal face (the king), -1 if none.
  int royalFace() const;

  // Compiled tables, indexed (face, colour, square).
  struct SquareMoves {
    uint32_t leapBegin;
    uint16_t leapCount;
    uint16_t rayCount;
    uint32_t rayBegin;
  };
  struct Ray {
    uint32_t begin;  // into raySquares
    uint8_t length;
    uint8_t dir;     // index into slideDirs
  };
  struct LeapSource {
    uint64_t faceMask;  // faces of the attacking colour that reach the target from `from`
    uint32_t from;
  };
  const SquareMoves& movesFrom(int face, Color c, Square s) const {
    return moveIndex_[(size_t(face) * numPlayers + c) * numSquares() + s];
  }
  const uint8_t* leapTargets() const { return leapTargets_.data(); }
  const Ray* rays() const { return rays_.data(); }
  const uint8_t* raySquares() const { return raySquares_.data(); }
  // Per ray square: the same face also leaps there from the same square (so move generation
  // lists it once, as the leap). leapRayOverlap() is false where no face has such a square.
  const uint8_t* rayAlsoLeap() const { return rayAlsoLeap_.data(); }
  bool leapRayOverlap() const { return leapRayOverlap_; }

  // Reverse tables for attack detection: for target s and attacking colour c, the squares a
  // leaper/stepper attacks s from, and the rays from s outward along which a slider attacks.
  struct AttackIndex {
    uint32_t leapBegin, leapCount, rayBegin, rayCount;
  };
  const AttackIndex& attacksTo(Square s, Color c) const { return attackIndex_[size_t(c) * numSquares() + s]; }
  const LeapSource* leapSources() const { return leapSources_.data(); }
  // Faces of colour c sliding in direction `dir` that reach `dist` squares (1-based).
  uint64_t slideMask(Color c, int dir, int dist) const {
    return slideMasks_[(size_t(c) * slideDirs_.size() + dir) * (maxRayLength_ + 1) + dist];
  }
  // Direction of slide dir for colour 0, as (dx, dy) in board columns/ranks (rank grows down).
  int slideDx(int dir) const { return slideDirs_[dir].first; }
  int slideDy(int dir) const { return slideDirs_[dir].second; }

  bool inZone(Color c, Square s) const { return zone_[size_t(c) * numSquares() + s]; }
  bool isDeadSquare(int face, Color c, Square s) const {
    return dead_[(size_t(face) * numPlayers + c) * numSquares() + s];
  }

  // Zobrist keys.
  uint64_t boardKey(Piece p, Square s) const {
    return zobristBoard_[(size_t(colorOf(p)) * faces.size() + faceOf(p)) * numSquares() + s];
  }
  uint64_t handKey(Color c, int kind, int count) const {
    return zobristHand_[(size_t(c) * handKinds.size() + kind) * (kMaxHandCount + 1) + count];
  }
  uint64_t sideKey(Color c) const { return zobristSide_[c]; }
  uint64_t lionCaptureKey(Square s) const { return zobristLionCapture_[s]; }
  // Four players: army a is controlled by player c (hashed only where c != a).
  uint64_t controllerKey(Color army, Color c) const { return zobristController_[army * kMaxPlayers + c]; }

 private:
  std::vector<SquareMoves> moveIndex_;
  std::vector<uint8_t> leapTargets_;
  std::vector<Ray> rays_;
  std::vector<uint8_t> raySquares_;
  std::vector<uint8_t> rayAlsoLeap_;
  bool leapRayOverlap_ = false;
  std::vector<AttackIndex> attackIndex_;
  std::vector<LeapSource> leapSources_;
  std::vector<std::pair<int, int>> slideDirs_;
  std::vector<uint64_t> slideMasks_;
  int maxRayLength_ = 0;
  uint64_t specialFaces_ = 0;
  std::vector<uint8_t> zone_;
  std::vector<uint8_t> dead_;
  std::vector<uint64_t> zobristBoard_;
  std::vector<uint64_t> zobristHand_;
  uint64_t zobristSide_[kMaxPlayers] = {};
  uint64_t zobristController_[kMaxPlayers * kMaxPlayers] = {};
  std::vector<uint64_t> zobristLionCapture_;
};

using VariantPtr = std::shared_ptr<const Variant>;

}  // namespace poppy::game
