// Which model a command plays with: the one its --model names, none (`--model none`), or, when
// it names none, the variant's shipped model (play/shipped_models.h), said on stderr.
#pragma once

#include <string>

#include "game/variant.h"

namespace poppy::program {

// True for the --model values that mean "no network": "none".
bool namesNoModel(const std::string& option);

// The model file `command` (e.g. "poppy play") plays `variant` with when --model was not given:
// the variant's shipped model, or "" (no network) where it has none or where that model was
// trained on other rules than the variant's (a variant file that reuses a shipped name). Says
// which on stderr. A shipped model file that is unreadable is an error (it names the file).
std::string defaultModelFor(const game::Variant& variant, const std::string& command);

}  // namespace poppy::program
