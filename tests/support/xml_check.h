// A small XML well-formedness check for the SVG files Poppy writes (charts, the ladder).
#pragma once
#include <cstring>
#include <set>
#include <string>
#include <vector>

namespace poppy::testing {

// A small XML checker: tags balance, attribute values are quoted, and text and attribute values
// hold no raw '<' and only known entities. Returns "" when the document is well-formed.
inline std::string xmlProblem(const std::string& doc) {
  std::vector<std::string> open;
  auto entitiesOk = [](const std::string& text) {
    for (size_t i = text.find('&'); i != std::string::npos; i = text.find('&', i + 1)) {
      bool ok = false;
      for (const char* e : {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"})
        if (text.compare(i, std::strlen(e), e) == 0) ok = true;
      if (!ok) return false;
    }
    return text.find('<') == std::string::npos;
  };
  size_t i = 0;
  bool root = false;
  while (i < doc.size()) {
    const size_t lt = doc.find('<', i);
    const std::string text = doc.substr(i, lt == std::string::npos ? std::string::npos : lt - i);
    if (!entitiesOk(text) || text.find('>') != std::string::npos) return "bad text: " + text;
    if (lt == std::string::npos) break;
    if (doc.compare(lt, 2, "<?") == 0) {
      i = doc.find("?>", lt);
      if (i == std::string::npos) return "unterminated <?";
      i += 2;
      continue;
    }
    if (doc.compare(lt, 2, "</") == 0) {
      const size_t gt = doc.find('>', lt);
      if (gt == std::string::npos) return "unterminated end tag";
      const std::string name = doc.substr(lt + 2, gt - lt - 2);
      if (open.empty() || open.back() != name) return "end tag </" + name + "> does not match";
      open.pop_back();
      i = gt + 1;
      continue;
    }
    // A start tag: name, then attributes name="value" until > or />.
    size_t p = lt + 1;
    const size_t nameEnd = doc.find_first_of(" />", p);
    if (nameEnd == std::string::npos) return "unterminated tag";
    const std::string name = doc.substr(p, nameEnd - p);
    if (name.empty()) return "empty tag name";
    if (open.empty() && root) return "second root element <" + name + ">";
    p = nameEnd;
    std::set<std::string> attributes;
    while (true) {
      while (p < doc.size() && (doc[p] == ' ' || doc[p] == '\n')) ++p;
      if (p >= doc.size()) return "unterminated tag <" + name;
      if (doc[p] == '>') {
        open.push_back(name);
        root = true;
        ++p;
        break;
      }
      if (doc.compare(p, 2, "/>") == 0) {
        root = true;
        p += 2;
        break;
      }
      const size_t eq = doc.find('=', p);
      if (eq == std::string::npos || doc[eq + 1] != '"') return "attribute without a quoted value in <" + name;
      const std::string attribute = doc.substr(p, eq - p);
      if (!attributes.insert(attribute).second) return "attribute " + attribute + " twice in <" + name;
      const size_t close = doc.find('"', eq + 2);
      if (close == std::string::npos) return "unterminated attribute value";
      if (!entitiesOk(doc.substr(eq + 2, close - eq - 2))) return "bad attribute value in <" + name;
      p = close + 1;
    }
    i = p;
  }
  if (!open.empty()) return "unclosed <" + open.back() + ">";
  if (!root) return "no element";
  return "";
}

}  // namespace poppy::testing
