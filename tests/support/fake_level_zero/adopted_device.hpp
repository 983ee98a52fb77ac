// A level_zero device of its own over the stand-in loader: the driver, device
// and a new context adopted through the external_* options, so a test that set
// the stand-in's properties gets a device that reads them now, not the one
// tack::device("level_zero") opened earlier in the process.
#pragma once

#include "drivers/level_zero_api.hpp"

#include <tack/tack.hpp>

#include <cstdint>
#include <string>

namespace tack_test {

inline tack::Device fresh_level_zero_device() {
  namespace ze = tack::drivers::ze;
  std::string why;
  const ze::Api* api = ze::load(&why);
  if (!api) throw tack::BackendUnavailable("level_zero: " + why);
  std::uint32_t count = 1;
  ze::ze_driver_handle_t driver = nullptr;
  ze::ze_device_handle_t device = nullptr;
  ze::ze_context_handle_t context = nullptr;
  api->zeDriverGet(&count, &driver);
  count = 1;
  api->zeDeviceGet(driver, &count, &device);
  ze::ze_context_desc_t desc{ze::ZE_STRUCTURE_TYPE_CONTEXT_DESC, nullptr, 0};
  api->zeContextCreate(driver, &desc, &context);  // leaked: an adopted context is the application's
  auto handle = [](void* p) { return static_cast<std::int64_t>(reinterpret_cast<std::intptr_t>(p)); };
  return tack::device("level_zero", {{"external_driver", handle(driver)},
                                     {"external_device", handle(device)},
                                     {"external_context", handle(context)}});
}

}  // namespace tack_test
