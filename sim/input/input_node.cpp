#include "sim/input/input_node.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>

namespace cs {
namespace {

std::string describe(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Map: return "a mapping";
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Null: return "empty (null)";
    case YAML::NodeType::Scalar: return "\"" + n.Scalar() + "\"";
    default: return "undefined";
  }
}

/// Rejects content that is not text: NUL bytes or invalid UTF-8.
void check_text(const std::string& text, const std::string& name) {
  std::size_t line = 1;
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == 0) throw InputError({name, static_cast<int>(line), 0}, "", "file is binary (NUL byte), not YAML text");
    if (c == '\n') ++line;
    std::size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    bool ok = len != 0 && i + len <= text.size();
    for (std::size_t k = 1; ok && k < len; ++k) ok = (static_cast<unsigned char>(text[i + k]) >> 6) == 0x2;
    if (!ok) throw InputError({name, static_cast<int>(line), 0}, "", "file is not valid UTF-8 text (binary data?)");
    i += len;
  }
}

}  // namespace

InputNode::InputNode(YAML::Node node, std::shared_ptr<const std::string> file, std::string path,
                     std::shared_ptr<const Written> written)
    : node_(std::move(node)),
      file_(std::move(file)),
      path_(std::move(path)),
      written_(std::move(written)),
      read_keys_(std::make_shared<std::set<std::string, std::less<>>>()) {}

InputNode InputNode::load_file(const std::string& path) { return load_file(path, {}); }

InputNode InputNode::load_file(const std::string& path, const std::vector<Setting>& settings) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError({path, 0, 0}, "", "cannot open file (does it exist and is it readable?)");
  std::ostringstream ss;
  ss << in.rdbuf();
  return parse(ss.str(), path, settings);
}

InputNode InputNode::parse(const std::string& text, const std::string& name) {
  check_text(text, name);
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw InputError({name, e.mark.line + 1, e.mark.column + 1}, "", "YAML syntax error: " + e.msg);
  }
  if (!root || root.IsNull()) throw InputError({name, 0, 0}, "", "file is empty; expected a YAML mapping");
  InputNode n(root, std::make_shared<const std::string>(name), "");
  if (!root.IsMap()) n.fail("top level must be a mapping of keys to values, not " + describe(root));
  return n;
}

InputNode InputNode::parse(const std::string& text, const std::string& name, const std::vector<Setting>& settings) {
  InputNode doc = parse(text, name);
  doc.apply(settings, "--set ");
  return doc;
}

void InputNode::apply(const std::vector<Setting>& settings, const std::string& origin_prefix) {
  if (settings.empty()) return;
  auto written = written_ ? std::make_shared<Written>(*written_) : std::make_shared<Written>();
  for (const Setting& s : settings) {
    const std::string origin = origin_prefix + s.key + "=" + s.value;
    if (s.key.empty() || s.key.front() == '.' || s.key.back() == '.' || s.key.find("..") != std::string::npos) {
      throw InputError({origin, 0, 0}, s.key, "a setting is KEY=VALUE with a dotted key (cluster.gpus=512)");
    }
    if (const auto blocked = set_dotted(node_, s.key, value_node(s.value))) {
      throw InputError({origin, 0, 0}, s.key,
                       blocked->first + " is " + blocked->second + " in " + *file_ + ", not a mapping of keys");
    }
    written->emplace_back(*find_dotted(node_, s.key), origin);
  }
  written_ = std::move(written);
}

InputNode InputNode::parse_value(const std::string& text, const std::string& name, const std::string& path) {
  check_text(text, name);
  YAML::Node v;
  try {
    v = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw InputError({name, e.mark.line + 1, e.mark.column + 1}, path, "YAML syntax error: " + e.msg);
  }
  if (!v || v.IsNull()) throw InputError({name, 0, 0}, path, "no value given");
  return InputNode(v, std::make_shared<const std::string>(name), path);
}

std::vector<std::string> InputNode::keys() const {
  std::vector<std::string> out;
  if (!node_.IsMap()) return out;
  for (const auto& kv : node_) out.push_back(kv.first.as<std::string>());
  return out;
}

std::string InputNode::child_path(std::string_view key) const {
  return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
}

std::string InputNode::yaml_text() const {
  YAML::Emitter out;
  out << node_;
  return std::string(out.c_str()) + "\n";
}

SourceLocation InputNode::location() const {
  if (written_) {
    for (const auto& [node, origin] : *written_) {
      if (node.is(node_)) return {origin, 0, 0};
    }
  }
  const YAML::Mark m = node_.Mark();
  if (m.is_null()) return {*file_, 0, 0};
  return {*file_, m.line + 1, m.column + 1};
}

void InputNode::fail(const std::string& message) const { throw InputError(location(), path_, message); }

std::optional<InputNode> InputNode::find(std::string_view key) const {
  if (!node_.IsMap()) fail("expected a mapping, got " + describe(node_));
  read_keys_->emplace(key);
  const YAML::Node child = node_[std::string(key)];
  if (!child || child.IsNull()) return std::nullopt;
  return InputNode(child, file_, child_path(key), written_);
}

bool InputNode::has(std::string_view key) const { return find(key).has_value(); }

InputNode InputNode::at(std::string_view key) const {
  if (auto n = find(key)) return *n;
  fail("missing key \"" + std::string(key) + "\"");
}

void InputNode::finish() const {
  if (!node_.IsMap()) return;
  for (const auto& kv : node_) {
    const std::string key = kv.first.as<std::string>();
    if (read_keys_->count(key) != 0) continue;
    std::string known;
    for (const auto& k : *read_keys_) known += (known.empty() ? "" : ", ") + k;
    const YAML::Mark m = kv.first.Mark();
    throw InputError({*file_, m.line + 1, m.column + 1}, child_path(key),
                     "unknown key" + (known.empty() ? std::string{} : " (expected one of: " + known + ")"));
  }
}

void InputNode::allow_only(std::initializer_list<std::string_view> allowed) const {
  allow_only(std::vector<std::string>(allowed.begin(), allowed.end()));
}

void InputNode::allow_only(const std::vector<std::string>& allowed) const {
  if (!node_.IsMap()) fail("expected a mapping, got " + describe(node_));
  for (const auto& kv : node_) {
    const std::string key = kv.first.as<std::string>();
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    std::vector<std::string> sorted = allowed;
    std::sort(sorted.begin(), sorted.end());
    std::string known;
    for (const auto& k : sorted) known += (known.empty() ? "" : ", ") + k;
    const YAML::Mark m = kv.first.Mark();
    throw InputError({*file_, m.line + 1, m.column + 1}, child_path(key), "unknown key (expected one of: " + known + ")");
  }
}

std::vector<InputNode> InputNode::elements() const {
  if (!node_.IsSequence()) fail("expected a list, got " + describe(node_));
  std::vector<InputNode> out;
  std::size_t i = 0;
  for (const auto& e : node_) out.push_back(InputNode(e, file_, path_ + "[" + std::to_string(i++) + "]", written_));
  return out;
}

const std::string& InputNode::scalar_text(std::string_view expected) const {
  if (!node_.IsScalar()) fail("expected " + std::string(expected) + ", got " + describe(node_));
  return node_.Scalar();
}

template <>
std::string InputNode::as<std::string>() const { return scalar_text("a string"); }

template <>
bool InputNode::as<bool>() const {
  const std::string& s = scalar_text("true or false");
  if (s == "true") return true;
  if (s == "false") return false;
  fail("expected true or false, got \"" + s + "\"");
}

template <>
double InputNode::as<double>() const {
  const std::string& s = scalar_text("a number");
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || end != s.data() + s.size() || !std::isfinite(v)) {
    fail("expected a plain number, got \"" + s + "\"");
  }
  return v;
}

template <>
std::int64_t InputNode::as<std::int64_t>() const {
  const std::string& s = scalar_text("a whole number");
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec == std::errc::result_out_of_range) fail("number \"" + s + "\" is out of range");
  if (ec != std::errc{} || end != s.data() + s.size()) {
    // Accept integral scientific notation such as 3e11 (token budgets), reject fractions.
    double d = 0;
    const auto [e2, ec2] = std::from_chars(s.data(), s.data() + s.size(), d);
    if (ec2 != std::errc{} || e2 != s.data() + s.size() || d != std::floor(d) || std::fabs(d) > 9e18) {
      fail("expected a whole number, got \"" + s + "\"");
    }
    v = static_cast<std::int64_t>(d);
  }
  return v;
}

template <>
int InputNode::as<int>() const {
  const std::int64_t v = as<std::int64_t>();
  if (v < -2147483647 || v > 2147483647) fail("number " + std::to_string(v) + " is out of range");
  return static_cast<int>(v);
}

namespace {
template <class Q, Q (*Parse)(std::string_view)>
Q parse_unit(const InputNode& n, const std::string& text) {
  try {
    return Parse(text);
  } catch (const UnitError& e) {
    n.fail(e.what());
  }
}
}  // namespace

#define CS_UNIT_AS(Type, fn, what)                                                   \
  template <>                                                                        \
  Type InputNode::as<Type>() const {                                                 \
    return parse_unit<Type, &fn>(*this, scalar_text(what));                          \
  }
CS_UNIT_AS(Time, parse_time, "a time with a unit (\"0.5us\")")
CS_UNIT_AS(Bytes, parse_bytes, "a size with a unit (\"80GiB\")")
CS_UNIT_AS(Bandwidth, parse_bandwidth, "a bandwidth with a unit (\"900GB/s\")")
CS_UNIT_AS(Flops, parse_flops, "a FLOP count with a unit (\"5PFLOP\")")
CS_UNIT_AS(FlopRate, parse_flop_rate, "a FLOP rate with a unit (\"989TFLOP/s\")")
CS_UNIT_AS(Watts, parse_watts, "a power with a unit (\"700W\")")
CS_UNIT_AS(Joules, parse_joules, "an energy with a unit (\"1MWh\")")
CS_UNIT_AS(Dollars, parse_dollars, "a price with a unit (\"36000USD\")")
CS_UNIT_AS(DollarRate, parse_dollar_rate, "an hourly price with a unit (\"2.99USD/h\")")
#undef CS_UNIT_AS

}  // namespace cs
