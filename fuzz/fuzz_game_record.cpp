// Game-record files (selfplay/game_record.h): JSONL, one record a line. Promises: reading any
// file gives the good records, one error per bad complete line and at most an ignored
// unterminated tail, never an exception; a record read writes back to a line that reads as the
// same record; and records appended to a file read back the same.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz/fuzz_support.h"
#include "selfplay/game_record.h"

using namespace poppy;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static fuzz::ScratchFile file("records.jsonl");
  static fuzz::ScratchFile appended("appended.jsonl");
  const selfplay::GameRecordFile read = selfplay::readGameRecordFile(file.write(data, size));
  for (const std::string& e : read.errors)
    fuzz::check(e.rfind(file.path() + ":", 0) == 0, "an error that does not name the file and line: " + e);

  for (const selfplay::GameRecord& r : read.records) {
    const std::string line = selfplay::gameRecordToJson(r);  // a record read is a valid record
    fuzz::check(line.find('\n') == std::string::npos, "a record written over two lines: " + line);
    fuzz::check(selfplay::gameRecordFromJson(line) == r, "a record does not read back as written: " + line);
  }
  if (read.records.empty()) return 0;
  appended.write(nullptr, 0);
  selfplay::appendGameRecords(appended.path(), read.records);
  const selfplay::GameRecordFile again = selfplay::readGameRecordFile(appended.path());
  fuzz::check(again.records == read.records && again.errors.empty() && !again.truncatedTail,
              "appended records do not read back the same");
  return 0;
}
