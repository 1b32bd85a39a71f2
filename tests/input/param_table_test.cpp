// The parameter table: one declaration gives the reader, its located errors, the shown default and the
// value check that forms and sweep axes use.
#include <gtest/gtest.h>

#include "sim/input/param_table.hpp"

namespace cs {
namespace {

enum class Shape { round, square };

struct Inner {
  Bandwidth link{100e9};
};

struct Widget {
  int count = 4;
  double ratio = 0.5;
  bool shiny = false;
  Watts power{700.0};
  std::optional<Time> timeout;
  Shape shape = Shape::round;
  Inner inner;
};

const EnumTable<Shape>& shape_names() {
  static const EnumTable<Shape> t{{Shape::round, "round"}, {Shape::square, "square"}};
  return t;
}

const ParamTable<Widget>& widget_params() {
  static const ParamTable<Widget> t = [] {
    ParamTable<Inner> inner("inner", "nested");
    inner.field("link", &Inner::link, {.help = "a link", .positive = true});
    ParamTable<Widget> p("widget", "a test section");
    p.field("count", &Widget::count, {.help = "how many", .min = 1, .max = 8});
    p.field("ratio", &Widget::ratio, {.help = "a fraction", .max = 1.0, .positive = true});
    p.field("shiny", &Widget::shiny, {.help = "polished"});
    p.field("power", &Widget::power, {.help = "draw", .positive = true});
    p.field("timeout", &Widget::timeout, {.help = "give up after", .positive = true});
    p.choice("shape", &Widget::shape, shape_names(), {.help = "outline"});
    p.section(&Widget::inner, inner);
    return p;
  }();
  return t;
}

Widget read(const std::string& yaml) {
  const InputNode root = InputNode::parse(yaml, "w.yaml");
  Widget w;
  widget_params().read(root.at("widget"), w);
  return w;
}

std::string error_of(const std::string& yaml) {
  try {
    (void)read(yaml);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(ParamTable, ReadsEveryDeclaredTypeAndKeepsDefaultsOfAbsentKeys) {
  const Widget w = read("widget:\n  count: 3\n  power: 1.2kW\n  timeout: 2s\n  shape: square\n  inner: {link: 400Gbps}\n");
  EXPECT_EQ(w.count, 3);
  EXPECT_DOUBLE_EQ(w.ratio, 0.5);  // absent: the struct's default
  EXPECT_FALSE(w.shiny);
  EXPECT_DOUBLE_EQ(w.power.value(), 1200.0);
  ASSERT_TRUE(w.timeout.has_value());
  EXPECT_EQ(*w.timeout, Time::from_seconds(2.0));
  EXPECT_EQ(w.shape, Shape::square);
  EXPECT_DOUBLE_EQ(w.inner.link.value(), 50e9);  // 400 Gbit/s = 50 GB/s
}

TEST(ParamTable, ErrorsNameFileLineColumnAndKey) {
  EXPECT_EQ(error_of("widget:\n  count: 9\n"), "w.yaml:2:10: widget.count: must lie in [1, 8]");
  EXPECT_EQ(error_of("widget:\n  ratio: 0\n"), "w.yaml:2:10: widget.ratio: must be positive");
  EXPECT_EQ(error_of("widget:\n  shape: oval\n"), "w.yaml:2:10: widget.shape: must be round or square, got \"oval\"");
  EXPECT_EQ(error_of("widget:\n  colour: red\n"),
            "w.yaml:2:3: widget.colour: unknown key (expected one of: count, inner, power, ratio, shape, shiny, "
            "timeout)");
  // The unit parser's own message, located at the value.
  EXPECT_EQ(error_of("widget:\n  inner: {link: 5}\n").rfind("w.yaml:2:17: widget.inner.link: \"5\" has no unit", 0), 0u);
}

TEST(ParamTable, SchemaCarriesDefaultsFromTheStructAndBoundsInSiUnits) {
  const ParamSection& s = widget_params().schema();
  const ParamSpec* count = s.find_param("count");
  ASSERT_NE(count, nullptr);
  EXPECT_EQ(count->type, ParamType::integer);
  EXPECT_EQ(count->default_text, "4");
  EXPECT_EQ(count->min, 1.0);
  EXPECT_EQ(count->max, 8.0);
  const ParamSpec* power = s.find_param("power");
  ASSERT_NE(power, nullptr);
  EXPECT_EQ(power->type, ParamType::watts);
  EXPECT_EQ(power->default_text, "700 W");
  EXPECT_TRUE(power->min_exclusive);
  EXPECT_EQ(s.find_param("timeout")->default_text, "none");
  EXPECT_EQ(s.find_param("shape")->choices, (std::vector<std::string>{"round", "square"}));
  ASSERT_NE(s.find_param("inner.link"), nullptr);
  EXPECT_EQ(s.find_param("inner.link")->default_text, "100 GB/s");
  EXPECT_EQ(s.find_param("inner.nope"), nullptr);
  EXPECT_EQ(s.find_param("nope"), nullptr);
}

TEST(ParamTable, CheckTextGivesTheFileMessageForOneValue) {
  const ParamSection& s = widget_params().schema();
  EXPECT_EQ(s.find_param("count")->check_text("3", "widget.count"), std::nullopt);
  EXPECT_EQ(s.find_param("count")->check_text("0", "widget.count"), "must lie in [1, 8]");
  EXPECT_EQ(s.find_param("count")->check_text("two", "widget.count"), "expected a whole number, got \"two\"");
  EXPECT_EQ(s.find_param("power")->check_text("700W", "widget.power"), std::nullopt);
  EXPECT_TRUE(s.find_param("power")->check_text("700", "widget.power").has_value());
  EXPECT_EQ(s.find_param("shape")->check_text("oval", "widget.shape"), "must be round or square, got \"oval\"");
}

// One declaration of `format_version` for every file kind: the versions this build reads, in the help and in
// the message for any other.
TEST(ParamSpec, FormatVersionNamesTheKindAndTheVersionsRead) {
  const ParamSpec v = format_version_spec("profile", {1, 2});
  EXPECT_TRUE(v.required);
  EXPECT_EQ(v.help, "the profile format's version; this build reads 1 and 2");
  EXPECT_EQ(v.check_text("2", "format_version"), std::nullopt);
  EXPECT_EQ(v.check_text("3", "format_version"), "unsupported profile format_version 3 (this build reads 1 and 2)");
  const ParamSpec t = format_version_spec("topology", {2}, "see docs/topology.md");
  EXPECT_EQ(t.check_text("1", "format_version"),
            "unsupported topology format_version 1 (this build reads 2); see docs/topology.md");
}

TEST(EnumTable, NamesValuesAndTheExpectedList) {
  EXPECT_EQ(shape_names().find("square"), Shape::square);
  EXPECT_EQ(shape_names().find("oval"), std::nullopt);
  EXPECT_EQ(shape_names().name(Shape::round), "round");
  EXPECT_EQ(shape_names().expected(), "round or square");
  EXPECT_EQ(EnumTable<int>::join_alternatives({"a", "b", "c"}), "a, b or c");
}

}  // namespace
}  // namespace cs
