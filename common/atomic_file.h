// Files that must survive a crash are written to NAME.tmp, flushed to disk, then renamed over
// NAME, so a reader sees the old file or the new one, never half of one.
#pragma once
#include <stdexcept>
#include <string>

namespace poppy::common {

class FileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws FileError naming the path on any failure (the old file is then left untouched).
void writeFileAtomically(const std::string& path, const std::string& contents);

// Checks, before long work, that writeFileAtomically(path, ...) will be able to write: path is
// not a folder and its folder exists and is writable (the temporary file goes there). Throws
// FileError naming the path and the reason; writes nothing.
void requireWritableDestination(const std::string& path);

// Whole file as bytes; throws FileError naming the path.
std::string readWholeFile(const std::string& path);

}  // namespace poppy::common
