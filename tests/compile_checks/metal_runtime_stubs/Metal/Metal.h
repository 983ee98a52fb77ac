// A stand-in for Apple's <Metal/Metal.h>, only for tests (see
// ../Foundation/Foundation.h): the Metal protocols, classes, types and
// functions src/backends/metal uses, with the SDK's names and signatures
// (enumerator values are not checked and need not match).
#pragma once

#import <Foundation/Foundation.h>

#include <stdint.h>

typedef struct {
  NSUInteger width, height, depth;
} MTLSize;
static inline MTLSize MTLSizeMake(NSUInteger width, NSUInteger height, NSUInteger depth) {
  MTLSize s = {width, height, depth};
  return s;
}
typedef struct {
  NSUInteger x, y, z;
} MTLOrigin;
static inline MTLOrigin MTLOriginMake(NSUInteger x, NSUInteger y, NSUInteger z) {
  MTLOrigin o = {x, y, z};
  return o;
}

// NS_OPTIONS in C++: a typedef of NSUInteger and an anonymous enum of that type, so | stays an NSUInteger.
typedef NSUInteger MTLResourceOptions;
enum : NSUInteger { MTLResourceStorageModeShared = 0 << 4, MTLResourceStorageModePrivate = 2 << 4 };
typedef NSUInteger MTLResourceUsage;
enum : NSUInteger { MTLResourceUsageRead = 1 << 0, MTLResourceUsageWrite = 1 << 1 };
typedef NSUInteger MTLTextureUsage;
enum : NSUInteger { MTLTextureUsageShaderRead = 1 << 0 };

// NS_ENUM: a fixed underlying type.
typedef enum MTLStorageMode : NSUInteger { MTLStorageModeShared = 0, MTLStorageModePrivate = 2 } MTLStorageMode;
typedef enum MTLTextureType : NSUInteger { MTLTextureType3D = 7 } MTLTextureType;
typedef enum MTLPixelFormat : NSUInteger { MTLPixelFormatR32Float = 55 } MTLPixelFormat;
typedef enum MTLCommandBufferStatus : NSUInteger {
  MTLCommandBufferStatusNotEnqueued = 0,
  MTLCommandBufferStatusEnqueued = 1,
  MTLCommandBufferStatusCommitted = 2,
  MTLCommandBufferStatusScheduled = 3,
  MTLCommandBufferStatusCompleted = 4,
  MTLCommandBufferStatusError = 5,
} MTLCommandBufferStatus;
typedef enum MTLMathMode : NSInteger { MTLMathModeSafe = 0, MTLMathModeRelaxed = 1, MTLMathModeFast = 2 } MTLMathMode;
typedef enum MTLMathFloatingPointFunctions : NSInteger {
  MTLMathFloatingPointFunctionsFast = 0,
  MTLMathFloatingPointFunctionsPrecise = 1,
} MTLMathFloatingPointFunctions;

typedef enum MTLGPUFamily : NSInteger { MTLGPUFamilyMetal3 = 5001 } MTLGPUFamily;
typedef uint64_t MTLGPUAddress;
typedef struct {
  uint64_t _impl;
} MTLResourceID;

#define TACK_STUB_MACOS13 __attribute__((availability(macos, introduced = 13.0)))

@protocol MTLDevice;
@protocol MTLCommandBuffer;

@protocol MTLResource <NSObject>
@property(readonly) id<MTLDevice> device;
@property(readonly) MTLStorageMode storageMode;
@end

@protocol MTLBuffer <MTLResource>
- (void*)contents;
@property(readonly) NSUInteger length;
@property(readonly) MTLGPUAddress gpuAddress TACK_STUB_MACOS13;
@end

@protocol MTLTexture <MTLResource>
@property(readonly) MTLResourceID gpuResourceID TACK_STUB_MACOS13;
@end

@protocol MTLFunction <NSObject>
@end

@protocol MTLLibrary <NSObject>
- (id<MTLFunction>)newFunctionWithName:(NSString*)functionName;
@end

@protocol MTLComputePipelineState <NSObject>
@property(readonly) NSUInteger maxTotalThreadsPerThreadgroup;
@end

@protocol MTLCommandEncoder <NSObject>
- (void)endEncoding;
@end

@protocol MTLComputeCommandEncoder <MTLCommandEncoder>
- (void)setComputePipelineState:(id<MTLComputePipelineState>)state;
- (void)setBuffer:(id<MTLBuffer>)buffer offset:(NSUInteger)offset atIndex:(NSUInteger)index;
- (void)setBytes:(const void*)bytes length:(NSUInteger)length atIndex:(NSUInteger)index;
- (void)useResource:(id<MTLResource>)resource usage:(MTLResourceUsage)usage;
- (void)dispatchThreads:(MTLSize)threadsPerGrid threadsPerThreadgroup:(MTLSize)threadsPerThreadgroup;
- (void)dispatchThreadgroups:(MTLSize)threadgroupsPerGrid threadsPerThreadgroup:(MTLSize)threadsPerThreadgroup;
@end

@protocol MTLBlitCommandEncoder <MTLCommandEncoder>
- (void)copyFromBuffer:(id<MTLBuffer>)sourceBuffer
           sourceOffset:(NSUInteger)sourceOffset
      sourceBytesPerRow:(NSUInteger)sourceBytesPerRow
    sourceBytesPerImage:(NSUInteger)sourceBytesPerImage
             sourceSize:(MTLSize)sourceSize
              toTexture:(id<MTLTexture>)destinationTexture
       destinationSlice:(NSUInteger)destinationSlice
       destinationLevel:(NSUInteger)destinationLevel
      destinationOrigin:(MTLOrigin)destinationOrigin;
- (void)copyFromBuffer:(id<MTLBuffer>)sourceBuffer
          sourceOffset:(NSUInteger)sourceOffset
              toBuffer:(id<MTLBuffer>)destinationBuffer
     destinationOffset:(NSUInteger)destinationOffset
                  size:(NSUInteger)size;
@end

typedef void (^MTLCommandBufferHandler)(id<MTLCommandBuffer>);

@protocol MTLCommandBuffer <NSObject>
- (id<MTLComputeCommandEncoder>)computeCommandEncoder;
- (id<MTLBlitCommandEncoder>)blitCommandEncoder;
- (void)addCompletedHandler:(MTLCommandBufferHandler)block;
- (void)commit;
- (void)waitUntilCompleted;
@property(readonly) MTLCommandBufferStatus status;
@property(readonly) NSError* error;
@end

@protocol MTLCommandQueue <NSObject>
- (id<MTLCommandBuffer>)commandBuffer;
@end

@interface MTLCompileOptions : NSObject
@property(readwrite, nonatomic) BOOL fastMathEnabled __attribute__((deprecated("Use mathMode instead")));
@property(readwrite, nonatomic) MTLMathMode mathMode;
@property(readwrite, nonatomic) MTLMathFloatingPointFunctions mathFloatingPointFunctions;
@end

@interface MTLTextureDescriptor : NSObject
@property(readwrite, nonatomic) MTLTextureType textureType;
@property(readwrite, nonatomic) MTLPixelFormat pixelFormat;
@property(readwrite, nonatomic) NSUInteger width;
@property(readwrite, nonatomic) NSUInteger height;
@property(readwrite, nonatomic) NSUInteger depth;
@property(readwrite, nonatomic) NSUInteger mipmapLevelCount;
@property(readwrite, nonatomic) MTLTextureUsage usage;
@property(readwrite, nonatomic) MTLStorageMode storageMode;
@end

@protocol MTLDevice <NSObject>
@property(readonly) NSString* name;
@property(readonly) MTLSize maxThreadsPerThreadgroup;
@property(readonly) NSUInteger maxBufferLength;
@property(readonly) uint64_t recommendedMaxWorkingSetSize;
@property(readonly) BOOL supports32BitFloatFiltering;
- (BOOL)supportsFamily:(MTLGPUFamily)gpuFamily;
- (id<MTLCommandQueue>)newCommandQueue;
- (id<MTLBuffer>)newBufferWithLength:(NSUInteger)length options:(MTLResourceOptions)options;
- (id<MTLBuffer>)newBufferWithBytes:(const void*)pointer length:(NSUInteger)length options:(MTLResourceOptions)options;
- (id<MTLTexture>)newTextureWithDescriptor:(MTLTextureDescriptor*)descriptor;
- (id<MTLLibrary>)newLibraryWithSource:(NSString*)source options:(MTLCompileOptions*)options error:(NSError**)error;
- (id<MTLComputePipelineState>)newComputePipelineStateWithFunction:(id<MTLFunction>)computeFunction
                                                             error:(NSError**)error;
@end

extern "C" id<MTLDevice> MTLCreateSystemDefaultDevice(void);
