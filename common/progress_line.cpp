#include "common/progress_line.h"

#include <unistd.h>

namespace poppy::common {

ProgressLine::ProgressLine(std::FILE* out, double pipeSeconds)
    : ProgressLine(out, ::isatty(::fileno(out)) != 0, pipeSeconds) {}

ProgressLine::ProgressLine(std::FILE* out, bool terminal, double pipeSeconds)
    : out_(out), terminal_(terminal), interval_(terminal ? 0.1 : pipeSeconds) {}

void ProgressLine::update(const std::string& text, bool last) {
  update(text, last, std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count());
}

void ProgressLine::update(const std::string& text, bool last, double seconds) {
  if (!last && seconds - lastShown_ < interval_) return;
  if (!terminal_ && text == lastText_) return;  // a pipe or a file gets each line once
  lastShown_ = seconds;
  lastText_ = text;
  if (terminal_) {
    std::fprintf(out_, "\r\033[K%s", text.c_str());  // \033[K clears what a longer line left
    open_ = true;
  } else {
    std::fprintf(out_, "%s\n", text.c_str());
  }
  std::fflush(out_);
}

void ProgressLine::finish() {
  if (!open_) return;
  std::fprintf(out_, "\n");
  std::fflush(out_);
  open_ = false;
}

}  // namespace poppy::common
