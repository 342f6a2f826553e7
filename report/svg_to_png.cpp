#include "report/svg_to_png.h"

#include <cmath>
#include <memory>
#include <stdexcept>

#include "common/atomic_file.h"

#ifndef POPPY_PNG

namespace poppy::report {

std::string svgToPng(const std::string&, double) {
  throw std::runtime_error(
      "this poppy was built without PNG pictures (librsvg2-dev was missing at build time: install it, or "
      "run scripts/setup.sh, and build again); ask for SVG instead");
}

void writeSvgAsPng(const std::string& svg, const std::string&, double scale) { svgToPng(svg, scale); }

}  // namespace poppy::report

#else

#include <cairo.h>
#include <librsvg/rsvg.h>

namespace poppy::report {
namespace {

constexpr double kMaxSide = 20000;

struct GObjectUnref {
  void operator()(RsvgHandle* h) const { g_object_unref(h); }
};
struct SurfaceDestroy {
  void operator()(cairo_surface_t* s) const { cairo_surface_destroy(s); }
};
struct ContextDestroy {
  void operator()(cairo_t* c) const { cairo_destroy(c); }
};

std::string takeError(GError* error) {
  std::string text = error && error->message ? error->message : "unknown librsvg error";
  if (error) g_error_free(error);
  return text;
}

cairo_status_t appendBytes(void* closure, const unsigned char* data, unsigned int length) {
  static_cast<std::string*>(closure)->append(reinterpret_cast<const char*>(data), length);
  return CAIRO_STATUS_SUCCESS;
}

}  // namespace

std::string svgToPng(const std::string& svg, double scale) {
  if (!(scale > 0) || scale > 16) throw std::invalid_argument("PNG scale must be above 0 and at most 16");
  GError* error = nullptr;
  std::unique_ptr<RsvgHandle, GObjectUnref> handle(
      rsvg_handle_new_from_data(reinterpret_cast<const guint8*>(svg.data()), svg.size(), &error));
  if (!handle) throw std::runtime_error("cannot read the SVG drawing: " + takeError(error));
  double width = 0, height = 0;
  if (!rsvg_handle_get_intrinsic_size_in_pixels(handle.get(), &width, &height))
    throw std::invalid_argument("the SVG drawing has no width and height in pixels");
  const double w = std::ceil(width * scale), h = std::ceil(height * scale);
  if (w < 1 || h < 1 || w > kMaxSide || h > kMaxSide)
    throw std::invalid_argument("a PNG of " + std::to_string(long(w)) + "x" + std::to_string(long(h)) +
                                " pixels is empty or too large (at most 20000 on a side)");
  std::unique_ptr<cairo_surface_t, SurfaceDestroy> surface(
      cairo_image_surface_create(CAIRO_FORMAT_ARGB32, int(w), int(h)));
  if (cairo_surface_status(surface.get()) != CAIRO_STATUS_SUCCESS)
    throw std::runtime_error(std::string("cannot make the PNG's image: ") +
                             cairo_status_to_string(cairo_surface_status(surface.get())));
  {
    std::unique_ptr<cairo_t, ContextDestroy> cr(cairo_create(surface.get()));
    const RsvgRectangle viewport{0, 0, width * scale, height * scale};
    if (!rsvg_handle_render_document(handle.get(), cr.get(), &viewport, &error))
      throw std::runtime_error("cannot draw the SVG drawing: " + takeError(error));
  }
  std::string png;
  const cairo_status_t status = cairo_surface_write_to_png_stream(surface.get(), appendBytes, &png);
  if (status != CAIRO_STATUS_SUCCESS)
    throw std::runtime_error(std::string("cannot encode the PNG: ") + cairo_status_to_string(status));
  return png;
}

void writeSvgAsPng(const std::string& svg, const std::string& path, double scale) {
  common::writeFileAtomically(path, svgToPng(svg, scale));
}

}  // namespace poppy::report

#endif  // POPPY_PNG
