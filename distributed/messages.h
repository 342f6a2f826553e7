// The contents of `poppy train --distributed`'s messages that carry more than text
// (distributed/mpi_link.h names them). No MPI here, so the tests check them without it.
//   kGame:  u32 record length n (little-endian), n bytes of the game record's JSON line, then the
//           game's replay chunk (selfplay/replay_file.h) to the end;
//   kModel: u32 generation, then the model file's bytes (nn/model_file.h) to the end.
// A message that does not parse raises MessageError naming the sender and what is wrong.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "selfplay/game_record.h"

namespace poppy::distributed {

class MessageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct GameMessage {
  selfplay::GameRecord record;
  std::vector<uint8_t> chunk;  // checked by the learner (decodeReplayChunk), not here
};
std::vector<uint8_t> packGame(const selfplay::GameRecord& record, const std::vector<uint8_t>& chunk);
GameMessage unpackGame(const std::vector<uint8_t>& bytes, const std::string& sender);

struct ModelMessage {
  int generation = 0;
  std::vector<uint8_t> model;  // checked when it is loaded (the model file's own checksum)
};
std::vector<uint8_t> packModel(int generation, const std::vector<uint8_t>& model);
ModelMessage unpackModel(const std::vector<uint8_t>& bytes, const std::string& sender);

}  // namespace poppy::distributed
