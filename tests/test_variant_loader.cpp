// The variant loader and the Betza parser on good and broken input.
//  (a) Broken YAML files: loadVariantFile throws VariantError naming the file and the key.
//  (b) Unknown variant names: loadVariant lists the known ones.
//  (c) Every shipped variant loads and starts from its `start` SFEN.
//  (d) parseBetza gives the move sets of the standard Betza definitions. The expected vectors are
//      written by hand from the notation (W = (0,1) steps, F = (1,1), N = (1,2), ...; f = forward
//      is dy > 0, r = right is dx > 0, doubled atom = rider), never copied from the code's output.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "game/betza.h"
#include "game/position.h"
#include "game/variant_loader.h"

using namespace poppy::game;
using ::testing::HasSubstr;
namespace fs = std::filesystem;

namespace {

// A valid micro-shogi-like file; each broken case edits one thing in it.
const std::string kGoodYaml =
    "name: testvar\n"
    "description: loader test variant\n"
    "board: {files: 4, ranks: 5}\n"
    "pieces:\n"
    "  - {letter: K, name: king, moves: K, royal: true}\n"
    "  - {letter: B, name: bishop, moves: B, flip: {name: tokin, moves: WfF}}\n"
    "  - {letter: G, name: gold, moves: WfF, flip: {name: rook, moves: R}}\n"
    "  - {letter: S, name: silver, moves: FfW, flip: {name: lance, moves: fR}}\n"
    "  - {letter: P, name: pawn, moves: fW, flip: {name: knight, moves: ffN}}\n"
    "start: kbgs/p3/4/3P/SGBK b - 1\n"
    "promotion:\n"
    "  kind: on_capture\n"
    "drops:\n"
    "  either_face: true\n"
    "  drop_on_dead_square: allow\n"
    "  dead_square_pieces: [P]\n"
    "repetition: {count: 4, result: draw, perpetual_check: loses}\n";

// kGoodYaml with `from` (which must occur exactly once) replaced by `to`.
std::string edit(const std::string& from, const std::string& to) {
  const size_t at = kGoodYaml.find(from);
  EXPECT_NE(at, std::string::npos) << "test bug: '" << from << "' not in the template";
  EXPECT_EQ(kGoodYaml.find(from, at + 1), std::string::npos) << "test bug: '" << from << "' occurs twice";
  if (at == std::string::npos) return kGoodYaml;
  return kGoodYaml.substr(0, at) + to + kGoodYaml.substr(at + from.size());
}

class LoaderFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("poppy_loader_test_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  std::string write(const std::string& name, const std::string& text) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }

  // Writes `text` to NAME.yaml and expects loadVariantFile to throw VariantError whose message
  // names the path and contains every one of `needles` (the offending key, usually).
  void expectError(const std::string& name, const std::string& text, const std::vector<std::string>& needles) {
    SCOPED_TRACE("case " + name);
    const std::string path = write(name + ".yaml", text);
    try {
      loadVariantFile(path);
      ADD_FAILURE() << "loaded without error:\n" << text;
    } catch (const VariantError& e) {
      const std::string msg = e.what();
      EXPECT_THAT(msg, HasSubstr(path));
      for (const auto& n : needles) EXPECT_THAT(msg, HasSubstr(n));
    } catch (const std::exception& e) {
      ADD_FAILURE() << "threw " << typeid(e).name() << " instead of VariantError: " << e.what();
    } catch (...) {
      ADD_FAILURE() << "threw a non-std exception instead of VariantError";
    }
  }

  fs::path dir_;
};

TEST_F(LoaderFiles, TemplateIsValid) {
  const std::string path = write("good.yaml", kGoodYaml);
  VariantPtr v = loadVariantFile(path);
  EXPECT_EQ(v->name, "testvar");
  EXPECT_EQ(v->files, 4);
  EXPECT_EQ(v->ranks, 5);
  EXPECT_EQ(Position(v).sfen(), "kbgs/p3/4/3P/SGBK b - 1");
}

TEST_F(LoaderFiles, InvalidYamlSyntax) {
  expectError("unclosed_flow_map", edit("board: {files: 4, ranks: 5}", "board: {files: 4, ranks: 5"), {"YAML"});
  expectError("unclosed_sequence", edit("dead_square_pieces: [P]", "dead_square_pieces: [P"), {"YAML"});
  expectError("bad_indent", edit("  kind: on_capture\n", "  kind: on_capture\n    extra: : :\n"), {"YAML"});
  expectError("tab_indent", edit("  either_face: true\n", "\teither_face: true\n"), {});
  // yaml-cpp reads an unterminated quote to the end of the file; then `board` is missing.
  expectError("unclosed_quote", edit("description: loader test variant", "description: \"loader test"), {});
}

TEST_F(LoaderFiles, TruncatedFile) {
  // Cut just before `start:`: the start position is missing.
  expectError("truncated_before_start", kGoodYaml.substr(0, kGoodYaml.find("start:")), {"start"});
  // Cut in the middle of a piece's flow mapping: a syntax error.
  expectError("truncated_in_piece", kGoodYaml.substr(0, kGoodYaml.find("flip: {name: rook") + 10), {"YAML"});
  // Cut after `pieces:` with no list.
  expectError("truncated_after_pieces", kGoodYaml.substr(0, kGoodYaml.find("pieces:") + 8), {"pieces"});
}

// Every prefix of a valid file either loads or throws VariantError naming the file; nothing else.
TEST_F(LoaderFiles, EveryPrefixLoadsOrThrowsVariantError) {
  int loaded = 0, rejected = 0;
  for (size_t n = 0; n <= kGoodYaml.size(); ++n) {
    const std::string path = write("prefix.yaml", kGoodYaml.substr(0, n));
    try {
      loadVariantFile(path);
      ++loaded;
    } catch (const VariantError& e) {
      ++rejected;
      EXPECT_THAT(std::string(e.what()), HasSubstr(path)) << "prefix length " << n;
    } catch (const std::exception& e) {
      ADD_FAILURE() << "prefix length " << n << ": threw " << typeid(e).name() << ": " << e.what();
    }
  }
  EXPECT_GT(loaded, 0);  // the whole file, at least
  EXPECT_GT(rejected, 0);
}

TEST_F(LoaderFiles, UnknownTopLevelKey) {
  expectError("unknown_top", kGoodYaml + "colour: red\n", {"colour", "unknown key"});
}

TEST_F(LoaderFiles, UnknownNestedKey) {
  expectError("unknown_board_key", edit("board: {files: 4, ranks: 5}", "board: {files: 4, ranks: 5, height: 3}"),
              {"board.height"});
  expectError("unknown_piece_key",
              edit("{letter: K, name: king, moves: K, royal: true}",
                   "{letter: K, name: king, moves: K, royal: true, speed: 2}"),
              {"pieces[0].speed"});
  expectError("unknown_flip_key",
              edit("flip: {name: tokin, moves: WfF}", "flip: {name: tokin, moves: WfF, speed: 2}"),
              {"pieces[1].flip.speed"});
  // A royal flip (chu's crown prince) gives a side two royals: only under royal capture.
  expectError("royal_flip_without_royal_capture",
              edit("flip: {name: tokin, moves: WfF}", "flip: {name: tokin, moves: WfF, royal: true}"),
              {"royal_capture: true"});
  expectError("unknown_promotion_key", edit("  kind: on_capture\n", "  kind: on_capture\n  zone: 2\n"),
              {"promotion.zone"});
  // Hand shogi's drop keys.
  expectError("max_rank_range", edit("  either_face: true\n", "  either_face: true\n  max_rank: {S: 6}\n"),
              {"drops.max_rank.S", "out of range 1..5"});
  expectError("only_to_check_unknown", edit("  either_face: true\n", "  either_face: true\n  only_to_check: [Q]\n"),
              {"drops.only_to_check"});
  expectError("unknown_drops_key", edit("  either_face: true\n", "  either_face: true\n  nifu: true\n"),
              {"drops.nifu"});
  expectError("perpetual_attack_without_perpetual_check",
              edit("perpetual_check: loses}", "perpetual_check: allowed, perpetual_attack: loses}"),
              {"repetition.perpetual_attack", "perpetual_check: loses"});
  expectError("unknown_repetition_key", edit("perpetual_check: loses}", "perpetual_check: loses, sennichite: 4}"),
              {"repetition.sennichite"});
}

TEST_F(LoaderFiles, BoardSizeOutOfRange) {
  expectError("files_0", edit("files: 4", "files: 0"), {"board.files"});
  expectError("files_17", edit("files: 4", "files: 17"), {"board.files"});
  expectError("files_negative", edit("files: 4", "files: -4"), {"board.files"});
  expectError("ranks_0", edit("ranks: 5", "ranks: 0"), {"board.ranks"});
  expectError("ranks_17", edit("ranks: 5", "ranks: 17"), {"board.ranks"});
  expectError("files_missing", edit("board: {files: 4, ranks: 5}", "board: {ranks: 5}"), {"board.files"});
  expectError("board_missing", edit("board: {files: 4, ranks: 5}\n", ""), {"board"});
}

TEST_F(LoaderFiles, MissingPieces) {
  const size_t from = kGoodYaml.find("pieces:");
  const size_t to = kGoodYaml.find("start:");
  expectError("pieces_missing", kGoodYaml.substr(0, from) + kGoodYaml.substr(to), {"pieces"});
  expectError("pieces_empty", kGoodYaml.substr(0, from) + "pieces: []\n" + kGoodYaml.substr(to), {"pieces"});
  expectError("pieces_scalar", kGoodYaml.substr(0, from) + "pieces: KBGSP\n" + kGoodYaml.substr(to), {"pieces"});
  expectError("piece_without_moves",
              edit("{letter: K, name: king, moves: K, royal: true}", "{letter: K, name: king, royal: true}"),
              {"pieces[0].moves"});
  expectError("piece_without_letter",
              edit("{letter: K, name: king, moves: K, royal: true}", "{name: king, moves: K, royal: true}"),
              {"pieces[0].letter"});
}

TEST_F(LoaderFiles, DuplicateLetter) {
  expectError("duplicate_letter", edit("{letter: S, name: silver", "{letter: G, name: silver"),
              {"pieces[3].letter", "G"});
}

TEST_F(LoaderFiles, BadPieceLetter) {
  expectError("lower_case_letter", edit("{letter: K, name: king", "{letter: k, name: king"), {"pieces[0].letter"});
  expectError("two_letters", edit("{letter: K, name: king", "{letter: KK, name: king"), {"pieces[0].letter"});
  expectError("digit_letter", edit("{letter: K, name: king", "{letter: 7, name: king"), {"pieces[0].letter"});
}

TEST_F(LoaderFiles, BadBetza) {
  expectError("betza_Xz", edit("name: bishop, moves: B,", "name: bishop, moves: Xz,"), {"pieces[1].moves", "Xz"});
  expectError("betza_fm", edit("name: bishop, moves: B,", "name: bishop, moves: fm,"), {"pieces[1].moves", "fm"});
  expectError("betza_flip", edit("flip: {name: rook, moves: R}", "flip: {name: rook, moves: Rq}"),
              {"pieces[2].flip.moves"});
  expectError("betza_range_0", edit("name: bishop, moves: B,", "name: bishop, moves: W0,"), {"pieces[1].moves"});
  // A range that does not fit in an int must be a notation error too, not std::out_of_range.
  expectError("betza_huge_range", edit("name: bishop, moves: B,", "name: bishop, moves: W99999999999,"),
              {"pieces[1].moves"});
  expectError("betza_list", edit("name: bishop, moves: B,", "name: bishop, moves: [B, W],"), {"pieces[1].moves"});
  // XBetza that is outside the supported subset names the part, the key and (via expectError)
  // the file.
  expectError("xbetza_two_leg_leaper", edit("name: bishop, moves: B,", "name: bishop, moves: BcaN,"),
              {"pieces[1].moves", "caN"});
  expectError("xbetza_parentheses", edit("name: bishop, moves: B,", "name: bishop, moves: B(ca)2K,"),
              {"pieces[1].moves", "(ca)2K"});
  // Powers: out-of-range counts and a burn_immune list with nothing that burns.
  expectError("burn_range", edit("name: bishop, moves: B,", "name: bishop, moves: B, burn: 3,"),
              {"pieces[1].burn"});
  expectError("area_range", edit("name: bishop, moves: B,", "name: bishop, moves: B, area: 0,"),
              {"pieces[1].area"});
  expectError("burn_immune_without_burner", edit("start: kbgs", "burn_immune: [B]\nstart: kbgs"), {"burn_immune", "no piece burns"});
  expectError("letter_prime", edit("letter: B,", "letter: \"B''\","), {"pieces[1].letter", "a prime"});
  // Whale's keys: captured_as must name another piece that can be in hand, and never on a
  // royal piece; reverts belongs on a flip face only. Yari's: the repetition ban and stalemate.
  expectError("captured_as_unknown", edit("name: silver, moves: FfW,", "name: silver, moves: FfW, captured_as: Q,"),
              {"pieces[3].captured_as", "'Q'"});
  expectError("captured_as_royal_target", edit("name: silver, moves: FfW,", "name: silver, moves: FfW, captured_as: K,"),
              {"pieces[3].captured_as", "in hand"});
  expectError("captured_as_itself", edit("name: silver, moves: FfW,", "name: silver, moves: FfW, captured_as: S,"),
              {"pieces[3].captured_as"});
  expectError("captured_as_on_royal", edit("name: king, moves: K,", "name: king, moves: K, captured_as: G,"),
              {"pieces[0].captured_as", "royal"});
  // Cubic's key: a flip's captured_as names another piece that can be in hand.
  expectError("flip_captured_as_unknown", edit("flip: {name: rook, moves: R}", "flip: {name: rook, moves: R, captured_as: Q}"),
              {"pieces[2].flip.captured_as", "'Q'"});
  expectError("flip_captured_as_itself", edit("flip: {name: rook, moves: R}", "flip: {name: rook, moves: R, captured_as: G}"),
              {"pieces[2].flip.captured_as", "the piece itself"});
  expectError("flip_captured_as_royal", edit("flip: {name: rook, moves: R}", "flip: {name: rook, moves: R, captured_as: K}"),
              {"pieces[2].flip.captured_as", "in hand"});
  expectError("reverts_on_setup_face", edit("name: silver, moves: FfW,", "name: silver, moves: FfW, reverts: true,"),
              {"pieces[3].reverts", "unknown"});
  expectError("repetition_result", edit("result: draw", "result: forbidden"), {"repetition.result", "illegal"});
  expectError("stalemate_value", edit("start: kbgs", "stalemate: win\nstart: kbgs"), {"stalemate", "draw"});
  // An-nan's key: borrowed moves come from the fast tables only, so not beside XBetza moves.
  std::string withXBetza = edit("name: bishop, moves: B,", "name: bishop, moves: BcfW,");
  withXBetza.replace(withXBetza.find("start: kbgs"), 11, "moves_as_piece_behind: true\nstart: kbgs");
  expectError("moves_as_piece_behind_with_xbetza", withXBetza, {"moves_as_piece_behind", "multi-leg"});
  // Unashogi's key: one king, drops, two players.
  std::string noDrops = edit("  either_face: true\n", "  enabled: false\n  either_face: true\n");
  noDrops.replace(noDrops.find("start: kbgs"), 11, "kings_in_hand: true\nstart: kbgs");
  expectError("kings_in_hand_without_drops", noDrops, {"kings_in_hand", "needs drops"});
  expectError("moves_as_piece_behind_value", edit("start: kbgs", "moves_as_piece_behind: maybe\nstart: kbgs"),
              {"moves_as_piece_behind"});
}

// Supported XBetza loads: the special moves go to Face::special, the rest stays plain.
TEST_F(LoaderFiles, XBetzaLoads) {
  const std::string path = write("xbetza_ok.yaml", edit("name: bishop, moves: B,", "name: bishop, moves: BcfW,"));
  VariantPtr v = loadVariantFile(path);
  const Face& f = v->faces[size_t(v->faceIndex('B', false))];
  EXPECT_EQ(f.moves.size(), 4u);    // the four bishop slides
  EXPECT_EQ(f.special.size(), 1u);  // capture straight ahead only
  EXPECT_EQ(f.special[0].first.mode, LegMode::kCapture);
  EXPECT_NE(v->specialFaces(), 0u);
}

TEST_F(LoaderFiles, FlipOnRoyalPiece) {
  expectError("royal_flip",
              edit("{letter: K, name: king, moves: K, royal: true}",
                   "{letter: K, name: king, moves: K, royal: true, flip: {name: emperor, moves: Q}}"),
              {"pieces[0].flip"});
}

// Issue 16 (8): a variant with no royal piece has no way to end by checkmate; it used to load.
TEST_F(LoaderFiles, NoRoyalPieceIsRefused) {
  expectError("no_royal",
              edit("{letter: K, name: king, moves: K, royal: true}", "{letter: K, name: king, moves: K}"),
              {"pieces", "royal"});
}

// The rules fingerprint changes with every rule and with nothing else.
TEST_F(LoaderFiles, FingerprintFollowsTheRulesNotTheNames) {
  const uint64_t good = loadVariantFile(write("good.yaml", kGoodYaml))->fingerprint;
  EXPECT_NE(good, 0u);
  EXPECT_EQ(loadVariantFile(write("again.yaml", kGoodYaml))->fingerprint, good) << "same rules, same fingerprint";
  const std::vector<std::pair<std::string, std::string>> sameRules = {
      {"name: testvar", "name: othername"},
      {"description: loader test variant", "description: something else"},
      {"name: bishop, moves: B,", "name: angle-mover, moves: B,"},
  };
  for (const auto& [from, to] : sameRules)
    EXPECT_EQ(loadVariantFile(write("same.yaml", edit(from, to)))->fingerprint, good) << from << " -> " << to;
  const std::vector<std::pair<std::string, std::string>> otherRules = {
      {"moves: fW, flip", "moves: fWbW, flip"},                   // a piece's moves
      {"start: kbgs/p3/4/3P/SGBK b - 1", "start: kbgs/p3/4/P3/SGBK b - 1"},  // the start position
      {"kind: on_capture", "kind: every_move"},                  // promotion
      {"either_face: true", "either_face: false"},               // drops
      {"drop_on_dead_square: allow", "drop_on_dead_square: forbid"},
      {"count: 4", "count: 3"},                                  // repetition
      {"perpetual_check: loses", "perpetual_check: allowed"},
  };
  for (const auto& [from, to] : otherRules)
    EXPECT_NE(loadVariantFile(write("other.yaml", edit(from, to)))->fingerprint, good) << from << " -> " << to;
}

TEST_F(LoaderFiles, UnknownPieceInDropRules) {
  expectError("max_per_file_unknown", edit("  either_face: true\n", "  either_face: true\n  max_per_file: {X: 1}\n"),
              {"drops.max_per_file.X"});
  expectError("max_per_file_zero", edit("  either_face: true\n", "  either_face: true\n  max_per_file: {P: 0}\n"),
              {"drops.max_per_file.P"});
  expectError("max_per_file_list", edit("  either_face: true\n", "  either_face: true\n  max_per_file: [P]\n"),
              {"drops.max_per_file"});
  expectError("dead_square_unknown", edit("dead_square_pieces: [P]", "dead_square_pieces: [Q]"),
              {"drops.dead_square_pieces"});
  expectError("no_drop_mate_unknown", edit("  either_face: true\n", "  either_face: true\n  no_drop_mate: [+K]\n"),
              {"drops.no_drop_mate"});
}

TEST_F(LoaderFiles, StartSfenDoesNotFitBoard) {
  expectError("start_5_files", edit("start: kbgs/p3/4/3P/SGBK b - 1", "start: kbgsp/p3/4/3P/SGBK b - 1"), {"start"});
  expectError("start_6_ranks", edit("start: kbgs/p3/4/3P/SGBK b - 1", "start: kbgs/p3/4/4/3P/SGBK b - 1"), {"start"});
  expectError("start_4_ranks", edit("start: kbgs/p3/4/3P/SGBK b - 1", "start: kbgs/p3/3P/SGBK b - 1"), {"start"});
  expectError("start_unknown_piece", edit("start: kbgs/p3/4/3P/SGBK b - 1", "start: kbgs/p3/4/3Q/SGBK b - 1"),
              {"start"});
  expectError("start_missing", edit("start: kbgs/p3/4/3P/SGBK b - 1\n", ""), {"start"});
}

TEST_F(LoaderFiles, BadPromotion) {
  expectError("kind_bogus", edit("kind: on_capture", "kind: bogus"), {"promotion.kind", "bogus"});
  expectError("zone_ranks_too_big", edit("kind: on_capture", "kind: zone\n  zone_ranks: 6"), {"promotion.zone_ranks"});
  expectError("zone_ranks_zero", edit("kind: on_capture", "kind: zone\n  zone_ranks: 0"), {"promotion.zone_ranks"});
  expectError("zone_ranks_missing", edit("kind: on_capture", "kind: zone"), {"promotion.zone_ranks"});
  expectError("zone_ranks_without_zone", edit("kind: on_capture", "kind: on_capture\n  zone_ranks: 2"),
              {"promotion.zone_ranks"});
}

TEST_F(LoaderFiles, WrongValueTypes) {
  expectError("files_string", edit("files: 4", "files: \"four\""), {"board.files"});
  expectError("files_fraction", edit("files: 4", "files: 4.5"), {"board.files"});
  expectError("files_huge", edit("files: 4", "files: 99999999999999999999"), {"board.files"});
  expectError("board_list", edit("board: {files: 4, ranks: 5}", "board: [4, 5]"), {"board"});
  expectError("royal_string", edit("royal: true", "royal: maybe"), {"pieces[0].royal"});
  expectError("name_list", edit("name: testvar", "name: [a, b]"), {"name"});
  expectError("either_face_number", edit("either_face: true", "either_face: 3"), {"drops.either_face"});
  expectError("repetition_count_word", edit("count: 4", "count: many"), {"repetition.count"});
  expectError("repetition_count_1", edit("count: 4", "count: 1"), {"repetition.count"});
  expectError("repetition_result_bogus", edit("result: draw", "result: win"), {"repetition.result"});
  expectError(
      "drops_list",
      edit("drops:\n  either_face: true\n  drop_on_dead_square: allow\n  dead_square_pieces: [P]\n", "drops: [P]\n"),
      {"drops"});
  expectError("drop_on_dead_square_bogus", edit("drop_on_dead_square: allow", "drop_on_dead_square: sometimes"),
              {"drops.drop_on_dead_square"});
}

TEST_F(LoaderFiles, WholeFileProblems) {
  for (const auto& [name, text] :
       std::vector<std::pair<std::string, std::string>>{{"empty", ""},
                                                        {"list_root", "- a\n- b\n"},
                                                        {"scalar_root", "micro\n"},
                                                        {"binary", std::string("\x00\xff\xfe", 3)}}) {
    SCOPED_TRACE(name);
    const std::string path = write(name + ".yaml", text);
    try {
      loadVariantFile(path);
      ADD_FAILURE() << "loaded";
    } catch (const VariantError& e) {
      EXPECT_THAT(std::string(e.what()), HasSubstr(path));
    } catch (const std::exception& e) {
      ADD_FAILURE() << "threw " << typeid(e).name() << ": " << e.what();
    }
  }
  const std::string missing = (dir_ / "does_not_exist.yaml").string();
  try {
    loadVariantFile(missing);
    ADD_FAILURE() << "loaded a missing file";
  } catch (const VariantError& e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr(missing));
  }
  // A directory is not a variant file.
  try {
    loadVariantFile(dir_.string());
    ADD_FAILURE() << "loaded a directory";
  } catch (const VariantError& e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr(dir_.string()));
  }
}

// (b)
TEST(LoadVariant, UnknownNameListsKnownVariants) {
  try {
    loadVariant("no-such-variant");
    FAIL() << "loaded";
  } catch (const VariantError& e) {
    const std::string msg = e.what();
    EXPECT_THAT(msg, HasSubstr("no-such-variant"));
    for (const char* name : {"micro", "minishogi", "kyoto", "judkins", "gorogoro", "tori", "shogi", "yari", "whale", "small", "quasi", "cubic", "cannon", "miburi", "annan", "unashogi", "hand"})
      EXPECT_THAT(msg, HasSubstr(name));
  } catch (const std::exception& e) {
    FAIL() << "threw " << typeid(e).name() << ": " << e.what();
  }
}

TEST(LoadVariant, MissingPathNamesThePath) {
  for (const std::string path : {"/no/such/dir/micro.yaml", "nonexistent.yml", "./no/such"}) {
    try {
      loadVariant(path);
      ADD_FAILURE() << path << " loaded";
    } catch (const VariantError& e) {
      EXPECT_THAT(std::string(e.what()), HasSubstr(path));
    }
  }
}

// (c)
std::string startFieldOf(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("start:", 0) == 0) {
      std::string s = line.substr(6);
      s.erase(0, s.find_first_not_of(" \t"));
      s.erase(s.find_last_not_of(" \t\r") + 1);
      return s;
    }
  return "";
}

TEST(ShippedVariants, LoadAndStartFromTheirStartField) {
  const std::vector<std::string> names = {"micro", "minishogi", "kyoto", "judkins", "gorogoro",
                                          "tori",  "shogi",     "yari",  "whale",  "mitsugumi", "small", "quasi", "cubic", "cubic8", "cannon", "miburi", "annan", "unashogi", "hand"};
  const auto known = knownVariants();
  for (const auto& name : names) {
    SCOPED_TRACE(name);
    EXPECT_NE(std::find(known.begin(), known.end(), name), known.end()) << "not in knownVariants()";
    const std::string path = std::string(POPPY_SOURCE_DIR) + "/configs/variants/" + name + ".yaml";
    const std::string start = startFieldOf(path);
    ASSERT_FALSE(start.empty()) << "no start: line in " << path;
    VariantPtr byName = loadVariant(name);
    VariantPtr byPath = loadVariantFile(path);
    EXPECT_EQ(byName->name, name);
    EXPECT_EQ(byName->startSfen, start);
    EXPECT_EQ(Position(byName).sfen(), start);
    EXPECT_EQ(Position(byPath).sfen(), start);
    EXPECT_EQ(Position::fromSfen(byName, start).sfen(), start);
  }
  // Every .yaml shipped loads (including ones added later).
  for (const auto& name : known) {
    SCOPED_TRACE(name);
    EXPECT_NO_THROW(loadVariant(name));
  }
}

// The start positions of docs/RULES.md.
TEST(ShippedVariants, StartPositionsMatchRulesMd) {
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"micro", "kbgs/p3/4/3P/SGBK b - 1"},
      {"shogi", "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"},
      {"minishogi", "rbsgk/4p/5/P4/KGSBR b - 1"},
      {"kyoto", "p+nks+l/5/5/5/+LSK+NP b - 1"},
      {"judkins", "rbnsgk/5p/6/6/P5/KGSNBR b - 1"},
      {"gorogoro", "sgkgs/5/1ppp1/1PPP1/5/SGKGS b - 1"},
      {"tori", "rpckcpl/3f3/sssssss/2s1S2/SSSSSSS/3F3/LPCKCPR b - 1"},
      {"yari", "rnnkbbr/7/ppppppp/7/7/7/PPPPPPP/7/RBBKNNR b - 1"},
      {"whale", "bnpwgh/dddddd/6/6/DDDDDD/HGWPNB b - 1"},
      {"small", "lnsgkgsnl/1rf1e1fb1/ppppppppp/9/9/9/PPPPPPPPP/1BF1E1FR1/LNSGKGSNL b - 1"},
      {"quasi", "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"},
      {"cubic", "1nbkqn1/r5b/ppppppp/7/7/PPPPPPP/B5R/1NQKBN1 b - 1"},
      {"cubic8", "1nbqkbn1/1r4r1/pppppppp/8/8/PPPPPPPP/1R4R1/1NBQKBN1 b - 1"},
      {"cannon", "lnsgkgsnl/1rci1uab1/p1p1p1p1p/9/9/9/P1P1P1P1P/1BAU1ICR1/LNSGKGSNL b - 1"},
      {"miburi", "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1 0+0"},
      {"annan", "lnsgkgsnl/1r5b1/p1ppppp1p/1p5p1/9/1P5P1/P1PPPPP1P/1B5R1/LNSGKGSNL b - 1"},
      {"unashogi", "9/9/9/9/9/9/9/9/9 b KRB2G2S2N2L9Pkrb2g2s2n2l9p 1"},
      {"hand", "2g1k1g2/2p1d1p2/3ppp3/9/9/9/3PPP3/2P1D1P2/2G1K1G2 b HOUY2N2L2Shouy2n2l2s 1"},
  };
  for (const auto& [name, sfen] : expected) EXPECT_EQ(Position(loadVariant(name)).sfen(), sfen) << name;
}

// (d) Betza.
using Vec = std::tuple<int, int, int>;  // dx, dy, range

std::vector<Vec> sorted(std::vector<Vec> v) {
  std::sort(v.begin(), v.end());
  return v;
}

std::vector<Vec> parsed(const std::string& text) {
  std::vector<Vec> out;
  for (const MoveVector& m : parseBetza(text)) out.emplace_back(m.dx, m.dy, m.range);
  return sorted(out);
}

std::vector<Vec> operator+(std::vector<Vec> a, const std::vector<Vec>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// Hand-written move sets. dy > 0 is forward, dx > 0 is to the owner's right.
const std::vector<Vec> kWazir = {{0, 1, 1}, {0, -1, 1}, {1, 0, 1}, {-1, 0, 1}};
const std::vector<Vec> kFerz = {{1, 1, 1}, {1, -1, 1}, {-1, 1, 1}, {-1, -1, 1}};
const std::vector<Vec> kRook = {{0, 1, 0}, {0, -1, 0}, {1, 0, 0}, {-1, 0, 0}};
const std::vector<Vec> kBishop = {{1, 1, 0}, {1, -1, 0}, {-1, 1, 0}, {-1, -1, 0}};
const std::vector<Vec> kKnight = {{1, 2, 1}, {-1, 2, 1}, {1, -2, 1}, {-1, -2, 1},
                                  {2, 1, 1}, {-2, 1, 1}, {2, -1, 1}, {-2, -1, 1}};

TEST(Betza, SimpleAtoms) {
  EXPECT_EQ(parsed("W"), sorted(kWazir));
  EXPECT_EQ(parsed("F"), sorted(kFerz));
  EXPECT_EQ(parsed("K"), sorted(kWazir + kFerz));
  EXPECT_EQ(parsed("WF"), sorted(kWazir + kFerz));
  EXPECT_EQ(parsed("N"), sorted(kKnight));
  EXPECT_EQ(parsed("D"), sorted({{0, 2, 1}, {0, -2, 1}, {2, 0, 1}, {-2, 0, 1}}));
  EXPECT_EQ(parsed("A"), sorted({{2, 2, 1}, {2, -2, 1}, {-2, 2, 1}, {-2, -2, 1}}));
  EXPECT_EQ(parsed("H"), sorted({{0, 3, 1}, {0, -3, 1}, {3, 0, 1}, {-3, 0, 1}}));
  EXPECT_EQ(parsed("G"), sorted({{3, 3, 1}, {3, -3, 1}, {-3, 3, 1}, {-3, -3, 1}}));
  EXPECT_EQ(parsed("C"),
            sorted({{1, 3, 1}, {-1, 3, 1}, {1, -3, 1}, {-1, -3, 1}, {3, 1, 1}, {-3, 1, 1}, {3, -1, 1}, {-3, -1, 1}}));
  EXPECT_EQ(parsed("Z"),
            sorted({{2, 3, 1}, {-2, 3, 1}, {2, -3, 1}, {-2, -3, 1}, {3, 2, 1}, {-3, 2, 1}, {3, -2, 1}, {-3, -2, 1}}));
}

TEST(Betza, Riders) {
  EXPECT_EQ(parsed("R"), sorted(kRook));
  EXPECT_EQ(parsed("B"), sorted(kBishop));
  EXPECT_EQ(parsed("Q"), sorted(kRook + kBishop));
  EXPECT_EQ(parsed("WW"), sorted(kRook));
  EXPECT_EQ(parsed("FF"), sorted(kBishop));
  EXPECT_EQ(parsed("NN"),
            sorted({{1, 2, 0}, {-1, 2, 0}, {1, -2, 0}, {-1, -2, 0}, {2, 1, 0}, {-2, 1, 0}, {2, -1, 0}, {-2, -1, 0}}));
  // Dragon and horse: the rider plus the one-step moves it lacks.
  EXPECT_EQ(parsed("RF"), sorted(kRook + kFerz));
  EXPECT_EQ(parsed("BW"), sorted(kBishop + kWazir));
}

TEST(Betza, LimitedRange) {
  EXPECT_EQ(parsed("bF2"), sorted({{1, -1, 2}, {-1, -1, 2}}));
  EXPECT_EQ(parsed("W2"), sorted({{0, 1, 2}, {0, -1, 2}, {1, 0, 2}, {-1, 0, 2}}));
  EXPECT_EQ(parsed("R3"), sorted({{0, 1, 3}, {0, -1, 3}, {1, 0, 3}, {-1, 0, 3}}));
  EXPECT_EQ(parsed("fR2"), sorted({{0, 1, 2}}));
}

TEST(Betza, ShogiPieces) {
  // Gold: W plus the two forward diagonals (6 moves).
  EXPECT_EQ(parsed("WfF"), sorted(kWazir + std::vector<Vec>{{1, 1, 1}, {-1, 1, 1}}));
  // Silver: F plus straight forward (5 moves).
  EXPECT_EQ(parsed("FfW"), sorted(kFerz + std::vector<Vec>{{0, 1, 1}}));
  // Lance: forward slide.
  EXPECT_EQ(parsed("fR"), sorted({{0, 1, 0}}));
  // Pawn: one step forward.
  EXPECT_EQ(parsed("fW"), sorted({{0, 1, 1}}));
  // Shogi knight: the two narrow forward knight leaps only.
  EXPECT_EQ(parsed("ffN"), sorted({{1, 2, 1}, {-1, 2, 1}}));
  EXPECT_EQ(parsed("ffN").size(), 2u);
}

TEST(Betza, DirectionModifiers) {
  EXPECT_EQ(parsed("fF"), sorted({{1, 1, 1}, {-1, 1, 1}}));
  EXPECT_EQ(parsed("bW"), sorted({{0, -1, 1}}));
  EXPECT_EQ(parsed("lW"), sorted({{-1, 0, 1}}));
  EXPECT_EQ(parsed("rW"), sorted({{1, 0, 1}}));
  EXPECT_EQ(parsed("vW"), sorted({{0, 1, 1}, {0, -1, 1}}));
  EXPECT_EQ(parsed("sW"), sorted({{1, 0, 1}, {-1, 0, 1}}));
  EXPECT_EQ(parsed("vR"), sorted({{0, 1, 0}, {0, -1, 0}}));
  EXPECT_EQ(parsed("sR"), sorted({{1, 0, 0}, {-1, 0, 0}}));
  // Single diagonals by a vertical and a horizontal letter.
  EXPECT_EQ(parsed("frF"), sorted({{1, 1, 1}}));
  EXPECT_EQ(parsed("flF"), sorted({{-1, 1, 1}}));
  EXPECT_EQ(parsed("brB"), sorted({{1, -1, 0}}));
  EXPECT_EQ(parsed("blB"), sorted({{-1, -1, 0}}));
  // Knight: f = the four forward leaps, ff/fs = narrow/wide forward, bb/bs backward, v/s.
  EXPECT_EQ(parsed("fN"), sorted({{1, 2, 1}, {-1, 2, 1}, {2, 1, 1}, {-2, 1, 1}}));
  EXPECT_EQ(parsed("bN"), sorted({{1, -2, 1}, {-1, -2, 1}, {2, -1, 1}, {-2, -1, 1}}));
  EXPECT_EQ(parsed("fsN"), sorted({{2, 1, 1}, {-2, 1, 1}}));
  EXPECT_EQ(parsed("bbN"), sorted({{1, -2, 1}, {-1, -2, 1}}));
  EXPECT_EQ(parsed("bsN"), sorted({{2, -1, 1}, {-2, -1, 1}}));
  EXPECT_EQ(parsed("vN"), sorted({{1, 2, 1}, {-1, 2, 1}, {1, -2, 1}, {-1, -2, 1}}));
  EXPECT_EQ(parsed("sN"), sorted({{2, 1, 1}, {-2, 1, 1}, {2, -1, 1}, {-2, -1, 1}}));
  EXPECT_EQ(parsed("rN"), sorted({{1, 2, 1}, {1, -2, 1}, {2, 1, 1}, {2, -1, 1}}));
  EXPECT_EQ(parsed("lN"), sorted({{-1, 2, 1}, {-1, -2, 1}, {-2, 1, 1}, {-2, -1, 1}}));
}

TEST(Betza, ToriPieces) {
  // Goose: forward diagonal two-square leaps, straight back two-square leap.
  EXPECT_EQ(parsed("fAbD"), sorted({{2, 2, 1}, {-2, 2, 1}, {0, -2, 1}}));
  // Pheasant: backward diagonal steps, forward two-square leap.
  EXPECT_EQ(parsed("bFfD"), sorted({{1, -1, 1}, {-1, -1, 1}, {0, 2, 1}}));
  // Crane: diagonals and straight forward/back, not sideways.
  EXPECT_EQ(parsed("FvW"), sorted(kFerz + std::vector<Vec>{{0, 1, 1}, {0, -1, 1}}));
  // Falcon: diagonals, sideways and forward (not straight back).
  EXPECT_EQ(parsed("FsfW"), sorted(kFerz + std::vector<Vec>{{1, 0, 1}, {-1, 0, 1}, {0, 1, 1}}));
  // Eagle "KbRfBbF2": king steps; straight back a rook; forward diagonals a bishop; backward
  // diagonals up to two. The longer range wins in each direction.
  EXPECT_EQ(parsed("KbRfBbF2"),
            sorted({{0, 1, 1}, {1, 0, 1}, {-1, 0, 1}, {0, -1, 0}, {1, 1, 0}, {-1, 1, 0}, {1, -1, 2}, {-1, -1, 2}}));
  // Quails: forward rook, one backward diagonal as a bishop, the other a single step.
  EXPECT_EQ(parsed("fRrbBlbF"), sorted({{0, 1, 0}, {1, -1, 0}, {-1, -1, 1}}));
  EXPECT_EQ(parsed("fRlbBrbF"), sorted({{0, 1, 0}, {-1, -1, 0}, {1, -1, 1}}));
}

TEST(Betza, DuplicatesMerge) {
  EXPECT_EQ(parsed("WW"), parsed("R"));
  EXPECT_EQ(parsed("WR"), sorted(kRook));  // a step is covered by the slide
  EXPECT_EQ(parsed("RW"), sorted(kRook));
  EXPECT_EQ(parsed("KQ"), sorted(kRook + kBishop));
  EXPECT_EQ(parsed("WfW"), sorted(kWazir));
  EXPECT_EQ(parsed("W2W3"), sorted({{0, 1, 3}, {0, -1, 3}, {1, 0, 3}, {-1, 0, 3}}));
}

TEST(Betza, BadNotationThrowsBetzaError) {
  for (const std::string bad : {"",   "Xz",  "fm",           "f",
                                "z",  "zW",  "mW",           "cR",
                                "W0", "W65", "W99999999999", "W99999999999999999999999",
                                "1W", "+W",  "W-",           "W W",
                                "w",  "K*",  "\xff",         "W\xc3\xa9",
                                "jN", "pR"}) {
    try {
      const auto moves = parseBetza(bad);
      ADD_FAILURE() << "\"" << bad << "\" parsed to " << moves.size() << " moves";
    } catch (const BetzaError& e) {
      if (!bad.empty()) {
        EXPECT_THAT(std::string(e.what()), HasSubstr(bad)) << "for \"" << bad << "\"";
      }
    } catch (const std::exception& e) {
      ADD_FAILURE() << "\"" << bad << "\" threw " << typeid(e).name() << " instead of BetzaError: " << e.what();
    }
  }
}

}  // namespace
