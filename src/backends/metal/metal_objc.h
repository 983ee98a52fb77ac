// Objective-C++ only (included by the .mm files, never by plain C++): the
// Metal objects behind the opaque handles of the metal_*.hpp classes, so that
// code outside src/backends/metal never sees Objective-C. Built with ARC
// (-fobjc-arc): the strong members below release their objects themselves,
// also inside C++ structs and standard containers.
#pragma once

#if !__has_feature(objc_arc)
#error "src/backends/metal is built with ARC (-fobjc-arc)"
#endif

#import <Foundation/Foundation.h>
#import <Metal/Metal.h>

#include <cstdint>
#include <memory>
#include <vector>

namespace tack::backends::metal {

struct DeviceObjects {
  id<MTLDevice> device;
};

struct PipelineObjects {
  id<MTLFunction> function;
  id<MTLComputePipelineState> pipeline;
};

struct BufferObjects {
  id<MTLBuffer> buffer;
};

struct TextureObjects {
  id<MTLTexture> texture;
};

// What one launch encodes into the open command buffer (Queue::encode): the body makes and ends its own
// encoder. `owned` and `holds` live until the command buffer completes: the launch's argument and uniform
// buffers, and the Tack buffers and images it reads, which an array dropped meanwhile must not free.
// Metal 3 addresses of what an argument buffer names (the device checks for Metal 3 when it opens).
std::uint64_t gpu_address(id<MTLBuffer> buffer);
std::uint64_t gpu_resource_id(id<MTLTexture> texture);

struct Encoding {
  id<MTLDevice> device;
  id<MTLCommandBuffer> command_buffer;
  NSMutableArray* owned;
  std::vector<std::shared_ptr<const void>>* holds;
};

}  // namespace tack::backends::metal
