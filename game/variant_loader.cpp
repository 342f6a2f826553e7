#include "game/variant_loader.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "common/data_dirs.h"
#include "common/yaml_reader.h"
#include "game/position.h"
#include "game/rules_fingerprint.h"

namespace poppy::game {
namespace fs = std::filesystem;
namespace {

// Reads one YAML file into a Variant, checking every key (common::YamlReader reports the file,
// key and line; loadVariantFile turns its ConfigError into a VariantError).
class Reader : public common::YamlReader {
 public:
  using common::YamlReader::YamlReader;

  // "P", "+P" or "Z'" to a face index.
  int faceToken(const Variant& v, const std::string& token, const std::string& key, const YAML::Node& node) const {
    const bool promoted = !token.empty() && token[0] == '+';
    const std::string letter = token.substr(promoted ? 1 : 0);
    const bool prime = letter.size() == 2 && letter[1] == '\'';
    const int face = letter.size() == 1 || prime ? v.faceIndex(letter[0], promoted, prime) : -1;
    if (face < 0) fail(key, "'" + token + "' is not a piece of this variant", node);
    return face;
  }

  uint64_t faceSet(const Variant& v, const YAML::Node& list, const std::string& key) const {
    if (!list.IsSequence()) fail(key, "must be a list of piece letters like [P]", list);
    uint64_t mask = 0;
    for (const auto& item : list)
      mask |= uint64_t(1) << faceToken(v, as<std::string>(item, key, "a piece letter"), key, item);
    return mask;
  }

  Face readFace(const YAML::Node& node, const std::string& key, char letter, bool prime, bool promoted) const {
    onlyKeys(node, key,
             promoted ? std::set<std::string>{"name", "moves", "royal", "area", "burn", "igui", "freeze", "reverts",
                                              "captured_as"}
                      : std::set<std::string>{"letter", "name", "moves", "royal", "flip", "area", "burn", "igui", "freeze",
                                              "captured_as"});
    Face f;
    f.letter = letter;
    f.prime = prime;
    f.promoted = promoted;
    f.name = node["name"] ? as<std::string>(node["name"], key + ".name", "a string") : f.token();
    if (!node["moves"]) fail(key + ".moves", "is required (Betza notation such as WfF)");
    f.betza = as<std::string>(node["moves"], key + ".moves", "a string in Betza notation");
    try {
      PieceMoves moves = parseXBetza(f.betza);
      f.moves = std::move(moves.plain);
      f.special = std::move(moves.special);
    } catch (const BetzaError& e) {
      fail(key + ".moves", e.what(), node["moves"]);
    }
    // Powers no notation covers (game/powers.h). Burning and igui stop at two captures: the
    // move's mask could name all eight neighbours, but no piece of the rule texts takes more
    // than two, and each more multiplies the move list.
    f.areaSteps = integer(node, key, "area", 1, 3, 0);
    f.burnCount = integer(node, key, "burn", 1, 2, 0);
    f.iguiCount = integer(node, key, "igui", 1, 2, 0);
    f.freezes = boolean(node, key, "freeze", false);
    if (promoted) f.reverts = boolean(node, key, "reverts", false);
    return f;
  }

  // Four players (yonin shogi, game/four_players.cpp): a mated player's king turns into the
  // `turned_king` face, added here: no moves, never in hand, taken by nobody.
  void readFourPlayerRules(const YAML::Node& root, Variant& v) const {
    const YAML::Node turned = root["turned_king"];
    if (v.numPlayers == 2) {
      if (turned) fail("turned_king", "is for four players (`players: 4`)", turned);
      return;
    }
    if (!turned) fail("turned_king", "is required with `players: 4`: the letter a mated player's king turns into, like X");
    const std::string letter = as<std::string>(turned, "turned_king", "a letter");
    if (letter.size() != 1 || !std::isupper(static_cast<unsigned char>(letter[0])))
      fail("turned_king", "'" + letter + "' must be one upper-case letter", turned);
    if (v.faceIndex(letter[0], false) >= 0) fail("turned_king", "'" + letter + "' is a piece already", turned);
    if (v.royalCapture) fail("royal_capture", "four players are mated, not captured (`players: 4`)", root["royal_capture"]);
    int royals = 0;
    for (const Face& f : v.faces) {
      royals += f.royal;
      if (!f.special.empty() || f.hasPowers())
        fail("pieces", "'" + f.token() + "': four players take steps, leaps and rides only (no XBetza legs or powers)");
    }
    if (royals != 1) fail("pieces", "four players need exactly one royal face, the king");
    Face x;
    x.letter = letter[0];
    x.name = "turned king";
    v.turnedKingFace = int(v.faces.size());
    v.faces.push_back(x);
  }

  VariantPtr read(const YAML::Node& root) const {
    auto v = std::make_shared<Variant>();
    v->sourcePath = path();
    onlyKeys(root, "", {"name", "description", "board", "pieces", "start", "promotion", "drops", "repetition", "ply_cap",
                        "royal_capture", "bare_king", "lion_trading", "full_set_at_start", "burn_immune",
                        "no_skip_after_skip", "stalemate", "players", "turned_king", "checks_to_win",
                        "moves_as_piece_behind", "kings_in_hand"});
    if (!root["name"]) fail("name", "is required");
    v->name = as<std::string>(root["name"], "name", "a string");
    if (root["description"]) v->description = as<std::string>(root["description"], "description", "a string");

    if (!root["board"]) fail("board", "is required (files and ranks)");
    onlyKeys(root["board"], "board", {"files", "ranks"});
    v->files = integer(root["board"], "board", "files", 1, kMaxFiles, 0, true);
    v->ranks = integer(root["board"], "board", "ranks", 1, kMaxRanks, 0, true);
    v->numPlayers = integer(root, "", "players", 2, kMaxPlayers, 2);
    if (v->numPlayers == 3) fail("players", "must be 2 or 4 (the armies sit on opposite or on all four sides)", root["players"]);
    if (v->numPlayers == 4 && v->files != v->ranks)
      fail("players", "four players need a square board (this one is " + std::to_string(v->files) + "x" +
                          std::to_string(v->ranks) + ")", root["players"]);

    // Unashogi: the king goes to hand like any piece (read first: it gives the king a hand kind).
    v->kingsInHand = boolean(root, "", "kings_in_hand", false);
    const YAML::Node pieces = root["pieces"];
    if (!pieces || !pieces.IsSequence() || pieces.size() == 0) fail("pieces", "must be a non-empty list", pieces);
    std::vector<int> flipOf;
    for (size_t i = 0; i < pieces.size(); ++i) {
      const std::string key = "pieces[" + std::to_string(i) + "]";
      const YAML::Node node = pieces[i];
      if (!node.IsMap()) fail(key, "must be a mapping with letter, name, moves", node);
      if (!node["letter"]) fail(key + ".letter", "is required");
      const std::string letter = as<std::string>(node["letter"], key + ".letter", "a letter");
      // A second set of letters, with a prime (Z'), for variants with more than 26 pieces.
      const bool prime = letter.size() == 2 && letter[1] == '\'';
      if ((letter.size() != 1 && !prime) || !std::isupper(static_cast<unsigned char>(letter[0])))
        fail(key + ".letter", "'" + letter + "' must be one upper-case letter, or one and a prime (Z')", node["letter"]);
      if (v->faceIndex(letter[0], false, prime) >= 0) fail(key + ".letter", "'" + letter + "' is used twice", node["letter"]);
      Face f = readFace(node, key, letter[0], prime, false);
      f.royal = boolean(node, key, "royal", false);
      const int face = int(v->faces.size());
      v->faces.push_back(f);
      HandKind hk{letter[0], prime, face, -1};
      if (node["flip"]) {
        if (f.royal) fail(key + ".flip", "a royal piece cannot flip", node["flip"]);
        Face back = readFace(node["flip"], key + ".flip", letter[0], prime, true);
        back.royal = boolean(node["flip"], key + ".flip", "royal", false);  // chu's crown prince
        back.flipTo = face;
        v->faces.push_back(back);
        v->faces[face].flipTo = face + 1;
        hk.otherFace = face + 1;
      }
      // A piece `captured_as` another never goes to hand itself (whale shogi's porpoise).
      if ((!f.royal || v->kingsInHand) && !node["captured_as"]) v->handKinds.push_back(hk);
    }
    // Checkmate is how games end: a variant without a king has no way to finish.
    bool anyRoyal = false;
    for (const Face& f : v->faces) anyRoyal = anyRoyal || f.royal;
    if (!anyRoyal) fail("pieces", "no piece is royal: mark the king with `royal: true` (games end by capturing or mating it)");
    if (int(v->faces.size()) > kMaxFaces) fail("pieces", "more than " + std::to_string(kMaxFaces) + " faces");
    v->royalCapture = boolean(root, "", "royal_capture", false);
    readFourPlayerRules(root, *v);
    for (const Face& f : v->faces)
      if (f.royal && f.promoted && !v->royalCapture)
        fail("pieces", "the flip of '" + f.letterToken() +
                           "' is royal: a piece that turns royal needs `royal_capture: true` (a side may then have two royals)");
    for (Face& f : v->faces)
      f.handKind = v->handKindOf(f.letter, f.prime);
    // `captured_as: K` on a piece: the captor takes K into hand instead, whichever face it shows
    // (whale's porpoise). On its flip, `flip: {captured_as: B}`: only the flipped face, which keeps
    // the rank it won (cubic shogi: a pawn that promoted is a bishop for good). The hand kind of
    // the piece named at `node`, checked.
    auto capturedAsKind = [&](const YAML::Node& node, const std::string& key, const std::string& letter,
                              const std::string& itself) {
      const std::string token = as<std::string>(node, key, "a piece letter");
      const Face& t = v->faces[size_t(faceToken(*v, token, key, node))];
      if (t.promoted || t.handKind < 0) fail(key, "'" + token + "' must be the letter of a piece that can be in hand", node);
      if (letter == token) fail(key, "'" + token + "' is the piece itself" + itself, node);
      return t.handKind;
    };
    for (size_t i = 0; i < pieces.size(); ++i) {
      const std::string pieceKey = "pieces[" + std::to_string(i) + "]";
      const YAML::Node capturedAs = pieces[i]["captured_as"];
      const YAML::Node flip = pieces[i]["flip"];
      const bool flipCapturedAs = flip && flip.IsMap() && flip["captured_as"];
      if (!capturedAs && !flipCapturedAs) continue;
      const std::string letter = as<std::string>(pieces[i]["letter"], pieceKey + ".letter", "a letter");
      auto ofThisPiece = [&](const Face& f) { return f.letter == letter[0] && f.prime == (letter.size() == 2); };
      if (capturedAs) {
        const std::string key = pieceKey + ".captured_as";
        const int kind = capturedAsKind(capturedAs, key, letter, "");
        if (boolean(pieces[i], pieceKey, "royal", false)) fail(key, "a royal piece is never captured into hand", capturedAs);
        for (Face& f : v->faces)
          if (ofThisPiece(f)) f.handKind = kind;
      }
      if (flipCapturedAs) {
        const int kind = capturedAsKind(flip["captured_as"], pieceKey + ".flip.captured_as", letter,
                                        " (a flipped piece goes to hand as its piece anyway)");
        for (Face& f : v->faces)
          if (ofThisPiece(f) && f.promoted) f.handKind = kind;
      }
    }

    const YAML::Node promo = root["promotion"];
    if (promo) {
      onlyKeys(promo, "promotion", {"kind", "zone_ranks", "mandatory", "forced_on_dead_square", "when"});
      const std::string kind = choice(promo, "promotion", "kind", {"none", "zone", "on_capture", "every_move"}, "none");
      v->promotion = kind == "zone" ? PromotionKind::kZone
                     : kind == "on_capture" ? PromotionKind::kOnCapture
                     : kind == "every_move" ? PromotionKind::kEveryMove
                                            : PromotionKind::kNone;
      if (v->promotion == PromotionKind::kZone)
        v->zoneRanks = integer(promo, "promotion", "zone_ranks", 1, v->ranks, 0, true);
      else if (promo["zone_ranks"])
        fail("promotion.zone_ranks", "only applies to kind: zone", promo["zone_ranks"]);
      v->promotionMandatory = boolean(promo, "promotion", "mandatory", false);
      v->forcedOnDeadSquare = boolean(promo, "promotion", "forced_on_dead_square", false);
      v->promoteOnEntryOrCapture =
          choice(promo, "promotion", "when", {"in_zone", "entering_or_capturing"}, "in_zone") == "entering_or_capturing";
      if (v->promoteOnEntryOrCapture && v->promotion != PromotionKind::kZone)
        fail("promotion.when", "only applies to kind: zone", promo["when"]);
    }

    v->maxPerFile.assign(v->faces.size(), 0);
    v->dropMaxRank.assign(v->faces.size(), 0);
    const YAML::Node drops = root["drops"];
    if (drops) {
      onlyKeys(drops, "drops", {"enabled", "either_face", "drop_on_dead_square", "dead_square_pieces", "max_per_file", "no_drop_mate",
                                "only_to_check", "max_rank"});
      v->dropsEnabled = boolean(drops, "drops", "enabled", true);
      v->dropEitherFace = boolean(drops, "drops", "either_face", false);
      v->dropOnDeadSquareForbidden = choice(drops, "drops", "drop_on_dead_square", {"allow", "forbid"}, "allow") == "forbid";
      v->deadSquareDropFaces = drops["dead_square_pieces"] ? faceSet(*v, drops["dead_square_pieces"], "drops.dead_square_pieces") : ~uint64_t(0);
      if (drops["no_drop_mate"]) v->noDropMateFaces = faceSet(*v, drops["no_drop_mate"], "drops.no_drop_mate");
      if (drops["only_to_check"]) v->dropOnlyToCheckFaces = faceSet(*v, drops["only_to_check"], "drops.only_to_check");
      // A map of piece letters to a number 1..ranks (max_per_file, max_rank), into a per-face list.
      auto perFace = [&](const char* name, const std::string& what, std::vector<int>& out) {
        const YAML::Node map = drops[name];
        if (!map) return;
        const std::string section = std::string("drops.") + name;
        if (!map.IsMap()) fail(section, "must map piece letters to " + what, map);
        for (const auto& kv : map) {
          const std::string key = section + "." + kv.first.as<std::string>();
          const int face = faceToken(*v, kv.first.as<std::string>(), key, kv.first);
          const int n = as<int>(kv.second, key, "a whole number");
          if (n < 1 || n > v->ranks) fail(key, std::to_string(n) + " is out of range 1.." + std::to_string(v->ranks), kv.second);
          out[size_t(face)] = n;
        }
      };
      perFace("max_rank", "ranks counted from the dropper's side, like {N: 6}", v->dropMaxRank);
      perFace("max_per_file", "counts, like {P: 1}", v->maxPerFile);
    }

    if (const YAML::Node rep = root["repetition"]) {
      onlyKeys(rep, "repetition", {"count", "result", "perpetual_check", "perpetual_attack"});
      v->repetitionCount = integer(rep, "repetition", "count", 2, 100, 4);
      const std::string result = choice(rep, "repetition", "result", {"draw", "loss_for_repeater", "illegal"}, "draw");
      v->repetitionResult = result == "draw"                ? RepetitionResult::kDraw
                            : result == "loss_for_repeater" ? RepetitionResult::kLossForRepeater
                                                            : RepetitionResult::kIllegal;
      v->perpetualCheckLoses = choice(rep, "repetition", "perpetual_check", {"loses", "allowed"}, "loses") == "loses";
      v->perpetualAttackLoses = choice(rep, "repetition", "perpetual_attack", {"loses", "allowed"}, "allowed") == "loses";
      if (v->perpetualAttackLoses && !v->perpetualCheckLoses)
        fail("repetition.perpetual_attack", "'loses' needs `perpetual_check: loses` (an attack extends that rule)",
             rep["perpetual_attack"]);
    }

    if (const YAML::Node bare = root["bare_king"]) {
      onlyKeys(bare, "bare_king", {"weak_pieces"});
      if (!v->royalCapture) fail("bare_king", "needs `royal_capture: true`", bare);
      v->bareKingRule = true;
      if (bare["weak_pieces"]) v->bareKingWeakFaces = faceSet(*v, bare["weak_pieces"], "bare_king.weak_pieces");
    }
    if (const YAML::Node lions = root["lion_trading"]) {
      onlyKeys(lions, "lion_trading", {"lions", "cheap_pieces"});
      if (!lions["lions"]) fail("lion_trading.lions", "is required (the lion faces, like [N, +O])", lions);
      v->lionFaces = faceSet(*v, lions["lions"], "lion_trading.lions");
      if (!v->lionFaces) fail("lion_trading.lions", "names no piece", lions["lions"]);
      if (lions["cheap_pieces"]) v->lionCheapFaces = faceSet(*v, lions["cheap_pieces"], "lion_trading.cheap_pieces");
      if (v->dropsEnabled) fail("lion_trading", "is for variants without drops (its square takes the hand's place in SFEN)", lions);
    }

    v->noSkipAfterSkip = boolean(root, "", "no_skip_after_skip", false);
    v->checksToWin = integer(root, "", "checks_to_win", 1, kMaxChecksToWin, 0);
    if (v->checksToWin && (v->numPlayers != 2 || v->royalCapture))
      fail("checks_to_win", "is for two players who check and mate (not with `players: 4` or `royal_capture`)",
           root["checks_to_win"]);
    v->movesAsPieceBehind = boolean(root, "", "moves_as_piece_behind", false);
    if (v->movesAsPieceBehind && (v->numPlayers != 2 || v->royalCapture))
      fail("moves_as_piece_behind", "is for two players who check and mate (not with `players: 4` or `royal_capture`)",
           root["moves_as_piece_behind"]);
    v->stalemateDraws = choice(root, "", "stalemate", {"loss", "draw"}, "loss") == "draw";
    if (v->stalemateDraws && v->royalCapture)
      fail("stalemate", "does not apply with `royal_capture: true` (a side without moves there is never stalemated)",
           root["stalemate"]);
    if (const YAML::Node immune = root["burn_immune"]) {
      v->burnImmuneFaces = faceSet(*v, immune, "burn_immune");
      bool anyBurner = false;
      for (const Face& f : v->faces) anyBurner = anyBurner || f.burnCount > 0;
      if (!anyBurner) fail("burn_immune", "no piece burns (`burn: N` on a piece)", immune);
    }

    v->impassePoints.assign(v->faces.size(), 0);
    if (const YAML::Node cap = root["ply_cap"]) {
      onlyKeys(cap, "ply_cap", {"adjudication", "points", "default_points", "threshold"});
      v->plyCapRule = choice(cap, "ply_cap", "adjudication", {"draw", "impasse_points"}, "draw") == "draw"
                          ? PlyCapRule::kDraw
                          : PlyCapRule::kImpassePoints;
      const int dflt = integer(cap, "ply_cap", "default_points", 0, 100, 1);
      for (size_t f = 0; f < v->faces.size(); ++f) v->impassePoints[f] = v->faces[f].royal ? 0 : dflt;
      if (const YAML::Node pts = cap["points"]) {
        if (!pts.IsMap()) fail("ply_cap.points", "must map piece letters to points, like {R: 5}", pts);
        for (const auto& kv : pts) {
          const std::string key = "ply_cap.points." + kv.first.as<std::string>();
          const int face = faceToken(*v, kv.first.as<std::string>(), key, kv.first);
          const int n = as<int>(kv.second, key, "a whole number");
          v->impassePoints[face] = n;
          // A piece counts the same on either face (shogi: a dragon is a rook).
          if (v->faces[face].flipTo >= 0 && !v->faces[face].promoted) v->impassePoints[v->faces[face].flipTo] = n;
        }
      }
      v->impasseThreshold = integer(cap, "ply_cap", "threshold", 0, 1000, 24);
    }

    v->compile();
    // The banned repetition is found from the hash a move would give (game/repetition_ban.cpp),
    // which follows plain board moves and drops only.
    if (v->repetitionResult == RepetitionResult::kIllegal && (v->specialFaces() || v->lionFaces))
      fail("repetition.result", "'illegal' is supported only where every move is a plain board move or a drop "
                                "(no multi-leg moves, powers or lion rules)", root["repetition"]["result"]);
    // A king in hand: game/king_in_hand.cpp, for two players who check and mate with one king.
    if (v->kingsInHand) {
      int royals = 0;
      for (const Face& f : v->faces) royals += f.royal;
      if (!v->dropsEnabled || v->numPlayers != 2 || v->royalCapture || royals != 1 || v->specialFaces() || v->lionFaces ||
          v->freezerFaces || v->movesAsPieceBehind)
        fail("kings_in_hand", "needs drops, two players who check and mate, one royal piece, and pieces that move "
                              "by steps, leaps and slides only", root["kings_in_hand"]);
    }
    // A borrowed move is looked up in the fast move tables (game/borrowed_moves.cpp).
    if (v->movesAsPieceBehind && (v->specialFaces() || v->lionFaces || v->freezerFaces))
      fail("moves_as_piece_behind", "is supported only where every piece moves by steps, leaps and slides "
                                    "(no multi-leg moves, powers, lions or freezers)", root["moves_as_piece_behind"]);
    if (!root["start"]) fail("start", "is required (the start position in SFEN)");
    v->startSfen = as<std::string>(root["start"], "start", "an SFEN string");
    try {
      const Position start = Position::fromSfen(v, v->startSfen);
      // `full_set_at_start` without drops: no piece changes sides, so neither side can ever
      // have more of a piece than it starts with (SFEN checks it: a chu SFEN with 13 pawns a
      // side is refused). Test variants that place any pieces leave it off.
      // With drops, captures move pieces between the sides: the bound is on both sides together,
      // board and hands (a shogi SFEN with 19 pawns is refused).
      if (boolean(root, "", "full_set_at_start", false)) {
        if (v->dropsEnabled) {
          v->maxPiecesInGame.assign(v->handKinds.size(), 0);
          for (size_t k = 0; k < v->handKinds.size(); ++k)
            for (Color c = 0; c < v->numPlayers; ++c) v->maxPiecesInGame[k] += start.handCount(c, int(k));
          for (Square s = 0; s < v->numSquares(); ++s)
            if (const Piece p = start.at(s); p && v->faces[faceOf(p)].handKind >= 0)
              ++v->maxPiecesInGame[size_t(v->faces[faceOf(p)].handKind)];
        } else {
          v->maxPiecesPerSide.assign(size_t(v->numPlayers) * v->handKinds.size(), 0);
          for (Square s = 0; s < v->numSquares(); ++s)
            if (const Piece p = start.at(s); p && v->faces[faceOf(p)].handKind >= 0)
              ++v->maxPiecesPerSide[size_t(colorOf(p)) * v->handKinds.size() + size_t(v->faces[faceOf(p)].handKind)];
        }
      }
    } catch (const SfenError& e) {
      fail("start", e.what(), root["start"]);
    }
    v->fingerprint = rulesFingerprint(*v);
    return v;
  }

 private:
};

bool looksLikePath(const std::string& s) {
  auto endsWith = [&](const char* suf) {
    const std::string x(suf);
    return s.size() >= x.size() && s.compare(s.size() - x.size(), x.size(), x) == 0;
  };
  return s.find('/') != std::string::npos || endsWith(".yaml") || endsWith(".yml");
}

}  // namespace

void requireTwoPlayers(const Variant& v, const std::string& what) {
  if (v.numPlayers == 2) return;
  throw VariantError(what + " is for two-player variants, and " + v.name + " has " + std::to_string(v.numPlayers) +
                     " players: Poppy plays it with perft, train, selfplay, match, play, serve and openings tree so far "
                     "(docs/VARIANTS.md, \"Yonin shogi\")");
}

VariantPtr loadVariantFile(const std::string& path) {
  try {
    const Reader reader(path);
    const YAML::Node root = reader.loadFile();
    if (!root.IsMap()) throw VariantError(path + ": must be a YAML mapping (name, board, pieces, ...)");
    return reader.read(root);
  } catch (const common::ConfigError& e) {
    throw VariantError(e.what());
  } catch (const YAML::Exception& e) {  // anything the checks above did not anticipate
    throw VariantError(path + ": " + e.what());
  }
}

std::vector<std::string> variantSearchDirs() {
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("POPPY_VARIANTS_DIR")) dirs.push_back(env);
  dirs.push_back("configs/variants");
  for (const auto& d : common::dataPaths("configs/variants")) dirs.push_back(d.string());
  return dirs;
}

std::vector<std::string> knownVariants() {
  std::set<std::string> names;
  for (const auto& dir : variantSearchDirs()) {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec))
      if (entry.path().extension() == ".yaml") names.insert(entry.path().stem().string());
  }
  return {names.begin(), names.end()};
}

VariantPtr loadVariant(const std::string& nameOrPath) {
  if (looksLikePath(nameOrPath)) return loadVariantFile(nameOrPath);
  for (const auto& dir : variantSearchDirs()) {
    const std::string path = dir + "/" + nameOrPath + ".yaml";
    std::error_code ec;
    if (fs::is_regular_file(path, ec)) return loadVariantFile(path);
  }
  std::string list;
  for (const auto& n : knownVariants()) list += (list.empty() ? "" : ", ") + n;
  throw VariantError("unknown variant '" + nameOrPath + "' (known: " + (list.empty() ? "none found" : list) +
                     "; or give a path to a .yaml file)");
}

}  // namespace poppy::game
