// A stand-in for Apple's <Foundation/Foundation.h>, only for tests: it declares
// the few Foundation classes and methods src/backends/metal uses, with their
// SDK signatures, so that clang can parse the Objective-C++ there on a machine
// without the SDK (tests/compile_checks/metal_runtime.sh). Passing proves the
// .mm files are well-formed Objective-C++ under ARC against these declarations;
// it proves nothing about the real SDK beyond what is copied here.
#pragma once

// From <objc/objc.h> on Apple platforms (BOOL is bool on arm64).
typedef bool BOOL;
#define YES true
#define NO false
#define nil nullptr

typedef unsigned long NSUInteger;
typedef long NSInteger;
typedef unsigned long NSStringEncoding;
enum : NSStringEncoding { NSUTF8StringEncoding = 4 };

@class Protocol;  // <objc/NSObject.h>

@protocol NSObject
- (BOOL)respondsToSelector:(SEL)aSelector;
- (BOOL)conformsToProtocol:(Protocol*)aProtocol;
@end

@interface NSObject <NSObject>
+ (instancetype)alloc;
- (instancetype)init;
@end

@interface NSString : NSObject
+ (instancetype)stringWithUTF8String:(const char*)nullTerminatedCString;
- (instancetype)initWithBytes:(const void*)bytes length:(NSUInteger)len encoding:(NSStringEncoding)encoding;
@property(readonly) const char* UTF8String;
@end

@interface NSProcessInfo : NSObject
+ (NSProcessInfo*)processInfo;
@property(readonly, copy) NSString* operatingSystemVersionString;
@end

@interface NSError : NSObject
@property(readonly, copy) NSString* localizedDescription;
@end

@interface NSArray<ObjectType> : NSObject
@end

@interface NSMutableArray<ObjectType> : NSArray<ObjectType>
+ (instancetype)array;
- (void)addObject:(ObjectType)anObject;
@end
