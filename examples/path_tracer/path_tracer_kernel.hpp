// The C++ twin of examples/python/path_tracer.py's render kernel: a Monte Carlo
// path tracer of diffuse and emissive spheres, written with Vec3, functions
// that return structs and tack::lang::Random. python/tests/test_twins.py checks
// that both give the same typed IR on every backend; tests/conformance/
// path_tracer.cpp runs it. The Python functions return early from inside
// traced ifs; a C++ function cannot return from inside an if_ body, so
// hit_sphere keeps its result in Vars and a "returned" flag, which is exactly
// what the Python front end makes of those returns (docs/python.md).
#pragma once

#include <tack/tack.hpp>

namespace path_tracer {

using namespace tack::lang;

constexpr double kEpsilon = 1e-3;  // how far a bounce starts off the surface
constexpr double kPi = 3.141592653589793;

struct Ray {
  Vec3 origin;
  Vec3 direction;
};

struct Hit {
  Value hit;  // bool
  Value t;    // the distance along the ray
};

// The distance along the ray to the sphere's nearest surface in front of it.
inline Hit hit_sphere(const Ray& ray, const Vec3& center, const Value& radius) {
  const Vec3 oc = ray.origin - center;
  const Value b = dot(oc, ray.direction);
  const Value c = dot(oc, oc) - radius * radius;
  const Value disc = b * b - c;
  Var returned = false, hit = false, t = false;
  auto give = [&](Value h, Value d) {
    hit = h;
    t = d;
    returned = true;
  };
  if_(disc < 0.0, [&] { give(false, 0.0); });
  if_(!returned, [&] {
    const Value s = sqrt(disc);
    const Value near = -b - s;
    if_(near > kEpsilon, [&] { give(true, near); });
    if_(!returned, [&] {
      const Value far = -b + s;
      if_(far > kEpsilon, [&] { give(true, far); });
      if_(!returned, [&] { give(false, 0.0); });
    });
  });
  return {hit, t};
}

struct Nearest {
  Value found;
  Value t;
  Value which;
};

// The sphere the ray meets first. Python's `if hit and t < nearest:` is
// `hit and (t < nearest)` on numbers: a Var that is t < nearest where hit
// holds, else hit.
inline Nearest nearest_hit(const Ray& ray, const ArrayOf<Vec4>& spheres) {
  Var found = false, nearest = 1e30, which = 0;
  for_range(0, spheres.shape(0), [&](Index k) {
    const Vec4 s = spheres[k];
    const Hit h = hit_sphere(ray, vec3(s.x, s.y, s.z), s.w);
    Var closer = 0;
    if_(
        h.hit != 0, [&] { closer = h.t < nearest.value(); }, [&] { closer = h.hit; });
    if_(closer != 0, [&] {
      found = true;
      nearest = h.t;
      which = k;
    });
  });
  return {found, nearest, which};
}

// A direction about `normal` with density cos(theta) / pi (Malley's method),
// on an orthonormal basis made from the normal alone (Duff et al. 2017).
inline Vec3 cosine_direction(const Vec3& normal, const Value& u1, const Value& u2) {
  const Value sign = copysign(1.0, normal.z);
  const Value a = -1.0 / (sign + normal.z);
  const Value b = normal.x * normal.y * a;
  const Vec3 tangent = vec3(1.0 + sign * normal.x * normal.x * a, sign * b, -sign * normal.x);
  const Vec3 bitangent = vec3(b, sign + normal.y * normal.y * a, -normal.y);
  const Value r = sqrt(u1);
  const Value phi = (2.0 * kPi) * u2;
  return tangent * (r * cos(phi)) + bitangent * (r * sin(phi)) + normal * sqrt(1.0 - u1);
}

// image: (h, w, 3); spheres: (n, 4) centre and radius; albedo, emission: (n, 3).
inline tack::Kernel render_kernel() {
  auto render = [](ArrayOf<Vec3> image, ArrayOf<Vec4> spheres, ArrayOf<Vec3> albedo, ArrayOf<Vec3> emission,
                   Scalar environment, Scalar samples, Scalar max_depth, Scalar seed) {
    parallel_for({image.shape(0), image.shape(1)}, [&](Index row, Index col) {
      const Value height = cast<float>(image.shape(0));
      const Value width = cast<float>(image.shape(1));
      Random rng(seed, row * image.shape(1) + col);
      Vec3Var total = vec3(0.0, 0.0, 0.0);
      for_range(0, samples, [&](Index) {
        // A pinhole camera at z = -4 looking along +z, 40 degrees across.
        const Value px = (cast<float>(col) + rng.uniform()) / width * 2.0 - 1.0;
        const Value py = 1.0 - (cast<float>(row) + rng.uniform()) / height * 2.0;
        const Vec3 view = 0.364 * vec3(px * width / height, py, 0.0) + vec3(0.0, 0.0, 1.0);
        Vec3Var origin = vec3(0.0, 0.0, -4.0);
        Vec3Var direction = normalize(view);
        Vec3Var throughput = vec3(1.0, 1.0, 1.0);
        Vec3Var radiance = vec3(0.0, 0.0, 0.0);
        for_range(0, max_depth, [&](Index) {
          const Nearest n = nearest_hit(Ray{origin, direction}, spheres);
          if_(!(n.found != 0), [&] {
            radiance += throughput * environment;
            break_();
          });
          const Vec4 s = spheres[n.which];
          const Vec3 point = origin + direction * n.t;
          const Vec3 normal = (point - vec3(s.x, s.y, s.z)) / s.w;
          radiance += throughput * emission[n.which];
          throughput = throughput * albedo[n.which];
          const Value u1 = rng.uniform();
          const Value u2 = rng.uniform();
          const Vec3 bounce = cosine_direction(normal, u1, u2);
          origin = point + normal * kEpsilon;
          direction = bounce;
        });
        total += radiance;
      });
      image(row, col) = total / cast<float>(samples);
    });
  };
  return tack::kernel("render", render);
}

}  // namespace path_tracer
