// Ctrl-C (SIGINT) and SIGTERM as a request to stop cleanly, for the long loops of `poppy train`
// and the distributed actor. While a StopOnSignal lives, the first such signal sets a flag that
// the loop polls (requested()) and puts the default action back, so a second signal ends the
// process at once: safe where every file that matters is written atomically. The handlers found
// at construction come back at destruction, also when an exception leaves the scope. One at a
// time in a process (the flag is the process's).
#pragma once

namespace poppy::common {

class StopOnSignal {
 public:
  StopOnSignal();  // clears the flag and installs the handlers
  ~StopOnSignal();
  StopOnSignal(const StopOnSignal&) = delete;
  StopOnSignal& operator=(const StopOnSignal&) = delete;

  // Whether SIGINT or SIGTERM arrived since the last StopOnSignal was made. Static because the
  // loops that poll it (callbacks handed to self-play pools) do not hold the guard.
  static bool requested();

 private:
  using Handler = void (*)(int);
  Handler oldInt_, oldTerm_;
};

}  // namespace poppy::common
