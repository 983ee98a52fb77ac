// Debug mode (TACK_DEBUG=1 or tack::set_debug): part of every variant key.
#pragma once

namespace tack {
bool debug();
void set_debug(bool on);
}  // namespace tack
