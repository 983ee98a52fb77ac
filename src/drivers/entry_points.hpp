// Each driver table lists its entry points once, as an X-macro of
// X(name, result, parameters) rows (TACK_CUDA_ENTRY_POINTS, ...), `name` as the
// library exports it. The table's members and its loading are both expanded
// from that list, so adding an entry point is adding one row. (NVRTC and hipRTC
// share one table, whose rows carry a name for each: rtc_api.hpp.)
#pragma once

// A row as the table's member: a function pointer, null until resolved.
#define TACK_DRIVER_ENTRY_MEMBER(name, result, parameters) result(*name) parameters = nullptr;

// A row looked up in `lib` (a DynamicLibrary) into the member of `api` (the
// table), both in scope where this expands: a symbol the library lacks leaves
// the member null and is named in lib.missing().
#define TACK_DRIVER_ENTRY_RESOLVE(name, result, parameters) lib.resolve(api.name, #name);
