"""A small Monte Carlo path tracer: spheres, diffuse and emissive materials.

    python examples/python/path_tracer.py [--device NAME] [--spp N] [--out FILE.png]

Written with the kernel language's vectors (tack.vec3), structs (@tack.struct),
functions that return early (@tack.func) and counter-based random numbers
(tack.Random): each pixel draws from its own stream, so the picture is the same
on every run and, up to the last bits of sin, cos and log, on every device.
The test python/tests/test_examples.py checks it with the white-furnace test:
a diffuse sphere of albedo rho in a uniform environment of radiance 1 shows rho
on the sphere and 1 elsewhere.
"""
import argparse
import math
import struct
import sys
import zlib

import numpy as np

import tack

EPSILON = 1e-3        # how far a bounce starts off the surface, so it does not hit its own sphere
PI = math.pi


@tack.struct
class Ray:
    origin: tack.vec3
    direction: tack.vec3


@tack.func
def hit_sphere(ray, center, radius):
    """The distance along the ray to the sphere's nearest surface in front of it."""
    oc = ray.origin - center
    b = tack.dot(oc, ray.direction)
    c = tack.dot(oc, oc) - radius * radius
    disc = b * b - c
    if disc < 0.0:
        return False, 0.0
    s = tack.sqrt(disc)
    t = -b - s
    if t > EPSILON:
        return True, t
    t = -b + s
    if t > EPSILON:
        return True, t
    return False, 0.0


@tack.func
def nearest_hit(ray, spheres):
    """The sphere the ray meets first: (hit, distance, index)."""
    found = False
    nearest = 1e30
    which = 0
    for k in range(spheres.shape[0]):
        s = spheres[k]
        hit, t = hit_sphere(ray, tack.vec3(s.x, s.y, s.z), s.w)
        if hit and t < nearest:
            found = True
            nearest = t
            which = k
    return found, nearest, which


@tack.func
def cosine_direction(normal, u1, u2):
    """A direction about `normal` with density cos(theta) / pi (Malley's method),
    on an orthonormal basis made from the normal alone (Duff et al. 2017)."""
    sign = tack.copysign(1.0, normal.z)
    a = -1.0 / (sign + normal.z)
    b = normal.x * normal.y * a
    tangent = tack.vec3(1.0 + sign * normal.x * normal.x * a, sign * b, -sign * normal.x)
    bitangent = tack.vec3(b, sign + normal.y * normal.y * a, -normal.y)
    r = tack.sqrt(u1)
    phi = 2.0 * PI * u2
    return tangent * (r * tack.cos(phi)) + bitangent * (r * tack.sin(phi)) + normal * tack.sqrt(1.0 - u1)


@tack.kernel
def render(image: tack.Array[tack.vec3], spheres: tack.Array[tack.vec4], albedo: tack.Array[tack.vec3],
           emission: tack.Array[tack.vec3], environment: tack.Scalar, samples: tack.Scalar,
           max_depth: tack.Scalar, seed: tack.Scalar):
    for row, col in tack.parallel(image.shape[0], image.shape[1]):
        height = tack.cast(image.shape[0], np.float32)
        width = tack.cast(image.shape[1], np.float32)
        rng = tack.Random(seed, row * image.shape[1] + col)
        total = tack.vec3(0.0, 0.0, 0.0)
        for _ in range(samples):
            # A pinhole camera at z = -4 looking along +z, 40 degrees across.
            px = (tack.cast(col, np.float32) + rng.uniform()) / width * 2.0 - 1.0
            py = 1.0 - (tack.cast(row, np.float32) + rng.uniform()) / height * 2.0
            view = 0.364 * tack.vec3(px * width / height, py, 0.0) + tack.vec3(0.0, 0.0, 1.0)
            ray = Ray(tack.vec3(0.0, 0.0, -4.0), tack.normalize(view))
            throughput = tack.vec3(1.0, 1.0, 1.0)
            radiance = tack.vec3(0.0, 0.0, 0.0)
            for _ in range(max_depth):
                hit, t, k = nearest_hit(ray, spheres)
                if not hit:
                    radiance += throughput * environment
                    break
                s = spheres[k]
                point = ray.origin + ray.direction * t
                normal = (point - tack.vec3(s.x, s.y, s.z)) / s.w
                radiance += throughput * emission[k]
                throughput = throughput * albedo[k]
                ray = Ray(point + normal * EPSILON, cosine_direction(normal, rng.uniform(), rng.uniform()))
            total += radiance
        image[row, col] = total / tack.cast(samples, np.float32)


FURNACE = {  # one diffuse sphere in a uniform environment
    "spheres": [[0.0, 0.0, 0.0, 1.0]], "albedo": [[0.6, 0.6, 0.6]], "emission": [[0.0, 0.0, 0.0]],
    "environment": 1.0}
SCENE = {  # a lamp above three balls on a big floor sphere, under a dim sky
    "spheres": [[0.0, -101.0, 0.0, 100.0], [-1.1, -0.35, 0.3, 0.65], [0.2, -0.5, -0.4, 0.5],
                [1.2, -0.6, 0.5, 0.4], [0.0, 3.0, 0.5, 1.2]],
    "albedo": [[0.7, 0.7, 0.7], [0.8, 0.3, 0.2], [0.2, 0.7, 0.3], [0.3, 0.4, 0.9], [0.0, 0.0, 0.0]],
    "emission": [[0.0, 0.0, 0.0]] * 4 + [[6.0, 5.5, 5.0]],
    "environment": 0.15}


def run(device, scene, width=64, height=48, samples=16, max_depth=6, seed=2026):
    """Renders `scene` on `device`; returns the (height, width, 3) f32 image."""
    f32 = lambda rows: device.array(np.asarray(rows, dtype=np.float32))
    image = device.zeros((height, width, 3), np.float32)
    render(image, f32(scene["spheres"]), f32(scene["albedo"]), f32(scene["emission"]),
           np.float32(scene["environment"]), np.int32(samples), np.int32(max_depth), np.uint64(seed))
    return image.numpy()


def write_png(path, image):
    """An 8-bit sRGB PNG of a linear image, written with zlib alone."""
    srgb = np.where(image <= 0.0031308, 12.92 * image, 1.055 * np.power(np.maximum(image, 0.0), 1 / 2.4) - 0.055)
    pixels = (np.clip(srgb, 0.0, 1.0) * 255.0 + 0.5).astype(np.uint8)
    h, w, _ = pixels.shape
    raw = b"".join(b"\x00" + pixels[y].tobytes() for y in range(h))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) +
                chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--device", default=None, help="cpu, interp, opencl, ... (default: TACK_DEVICE, else cpu)")
    p.add_argument("--spp", type=int, default=64, help="samples per pixel")
    p.add_argument("--out", default="path_tracer.png")
    args = p.parse_args(argv)
    try:
        dev = tack.device(args.device)
    except tack.BackendUnavailable as e:
        print(f"skipped: {e}", file=sys.stderr)
        return 77
    image = run(dev, SCENE, width=160, height=120, samples=args.spp)
    write_png(args.out, image)
    print(f"device: {dev.name}; wrote {args.out} ({image.shape[1]}x{image.shape[0]}, {args.spp} samples per "
          f"pixel, mean radiance {image.mean():.4f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
