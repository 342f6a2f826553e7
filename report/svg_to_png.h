// PNG pictures of Poppy's SVG drawings (opening trees, charts), for papers and chat, rasterised
// by librsvg (Debian's librsvg2, the SVG renderer GNOME uses). Text is drawn with the fonts
// fontconfig finds: scripts/setup.sh installs DejaVu (Latin) and IPA Mincho (the kanji of the
// pieces). A build without librsvg (cmake -DPOPPY_PNG=OFF) throws std::runtime_error saying so.
#pragma once
#include <string>

namespace poppy::report {

// The PNG bytes of an SVG document, `scale` pixels per SVG unit (2: a sharp picture on a
// high-density screen). Throws std::runtime_error with librsvg's reason when the SVG cannot be
// read, and std::invalid_argument when the picture would be empty or larger than 20,000 pixels
// on a side.
std::string svgToPng(const std::string& svg, double scale = 1.0);

// svgToPng written atomically to `path`.
void writeSvgAsPng(const std::string& svg, const std::string& path, double scale = 1.0);

}  // namespace poppy::report
