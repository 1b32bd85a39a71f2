// ParamTable<S>: the declarations of one input section, bound to the fields of the struct `S` they fill.
//
//   ParamTable<CoolingConfig> t("cooling", "How the racks are cooled.");
//   t.choice("type", &CoolingConfig::kind, kCoolingNames, {.help = "air or direct liquid cooling"})
//    .field("pue", &CoolingConfig::pue, {.help = "power usage effectiveness", .min = 1.0, .max = 3.0});
//   t.read(section_node, cfg);   // checked, located errors; unknown keys refused
//
// A field's default is read from a default-constructed S, so the struct stays the one place that holds it;
// `default_text` overrides the shown default where it depends on other keys. Reading order is declaration order.
// A table is built once (a function-local static) and is immutable afterwards: safe to share between threads.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "sim/core/units.hpp"
#include "sim/input/enum_table.hpp"
#include "sim/input/input_node.hpp"
#include "sim/input/param_spec.hpp"

namespace cs {

/// Options of one field; bounds are in the value type's SI base unit (seconds, bytes, B/s, W, USD, USD/h).
struct FieldOpts {
  std::string help;
  std::optional<double> min;
  std::optional<double> max;
  bool positive = false;      ///< the value must be above zero
  std::string default_text;   ///< shown default when the struct's own default is not what applies
  bool required = false;
};

namespace param_detail {

template <class T> struct TypeOf;
template <> struct TypeOf<int> { static constexpr ParamType value = ParamType::integer; };
template <> struct TypeOf<std::int64_t> { static constexpr ParamType value = ParamType::integer; };
template <> struct TypeOf<double> { static constexpr ParamType value = ParamType::real; };
template <> struct TypeOf<bool> { static constexpr ParamType value = ParamType::boolean; };
template <> struct TypeOf<std::string> { static constexpr ParamType value = ParamType::text; };
template <> struct TypeOf<Time> { static constexpr ParamType value = ParamType::time; };
template <> struct TypeOf<Bytes> { static constexpr ParamType value = ParamType::bytes; };
template <> struct TypeOf<Bandwidth> { static constexpr ParamType value = ParamType::bandwidth; };
template <> struct TypeOf<Flops> { static constexpr ParamType value = ParamType::flops; };
template <> struct TypeOf<FlopRate> { static constexpr ParamType value = ParamType::flop_rate; };
template <> struct TypeOf<Watts> { static constexpr ParamType value = ParamType::watts; };
template <> struct TypeOf<Joules> { static constexpr ParamType value = ParamType::joules; };
template <> struct TypeOf<Dollars> { static constexpr ParamType value = ParamType::dollars; };
template <> struct TypeOf<DollarRate> { static constexpr ParamType value = ParamType::dollar_rate; };

/// The value in SI base units, for range checks.
template <class T>
double to_si(const T& v) {
  if constexpr (std::is_same_v<T, Time>) return v.seconds();
  else if constexpr (std::is_arithmetic_v<T>) return static_cast<double>(v);
  else return v.value();
}

template <class T>
T from_si(double v) {
  if constexpr (std::is_same_v<T, Time>) return Time::from_seconds(v);
  else if constexpr (std::is_arithmetic_v<T>) return static_cast<T>(v);
  else return T{v};
}

/// The value as a user writes it in a file ("0.5 us", "400 GB/s", "1.5", "true").
template <class T>
std::string to_text(const T& v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v ? "true" : "false";
  } else if constexpr (std::is_same_v<T, std::string>) {
    return v;
  } else if constexpr (std::is_integral_v<T>) {
    return std::to_string(v);
  } else if constexpr (std::is_floating_point_v<T>) {
    std::ostringstream s;
    s << v;
    return s.str();
  } else {
    return to_string(v);
  }
}

/// Reads a value and checks it against the options' bounds, failing at the node.
template <class T>
T read_checked(const InputNode& n, const FieldOpts& o) {
  const T v = n.as<T>();
  if constexpr (!std::is_same_v<T, bool> && !std::is_same_v<T, std::string>) {
    const double x = to_si(v);
    if (o.positive && !(x > 0)) n.fail(std::is_integral_v<T> ? "must be a positive whole number" : "must be positive");
    if (o.min && o.max && (x < *o.min || x > *o.max)) {
      n.fail("must lie in [" + to_text(from_si<T>(*o.min)) + ", " + to_text(from_si<T>(*o.max)) + "]");
    }
    if (o.min && x < *o.min) n.fail("must be at least " + to_text(from_si<T>(*o.min)));
    if (o.max && x > *o.max) n.fail("must be at most " + to_text(from_si<T>(*o.max)));
  }
  return v;
}

template <class E>
E read_choice(const InputNode& n, const EnumTable<E>& names) {
  const std::string s = n.as<std::string>();
  const auto v = names.find(s);
  if (!v) n.fail("must be " + names.expected() + ", got \"" + s + "\"");
  return *v;
}

/// A positive whole number, or `auto` (returned as 0): a degree the loader derives later (parallelism.dp,
/// serving.deployment.replicas: cluster.gpus over the rest of the layout).
inline int read_count_or_auto(const InputNode& n) {
  if (n.as<std::string>() == "auto") return 0;
  return read_checked<int>(n, {.positive = true});
}

}  // namespace param_detail

/// The declaration of a count that may be `auto` (param_detail::read_count_or_auto): an integer key whose
/// allowed values also name `auto`, for docs, the JSON Schema and the planner's forms.
inline ParamSpec count_or_auto_spec(std::string key, std::string help, std::string default_text) {
  ParamSpec spec{.key = std::move(key), .type = ParamType::integer, .help = std::move(help),
                 .default_text = std::move(default_text), .min = 0.0, .min_exclusive = true, .choices = {"auto"}};
  spec.check = [](const InputNode& n) { (void)param_detail::read_count_or_auto(n); };
  return spec;
}

template <class S>
class ParamTable {
 public:
  using Reader = std::function<void(const InputNode& value, S& out)>;

  ParamTable(std::string key, std::string help) {
    schema_.key = std::move(key);
    schema_.help = std::move(help);
  }

  /// A field of type T (a number, bool, string or unit type).
  template <class T>
  ParamTable& field(std::string key, T S::*member, FieldOpts o) {
    ParamSpec spec = base_spec<T>(std::move(key), o);
    spec.default_text = !o.default_text.empty() ? o.default_text : o.required ? "" : param_detail::to_text(S{}.*member);
    return add(std::move(spec), o.required, [member, o](const InputNode& n, S& out) {
      out.*member = param_detail::read_checked<T>(n, o);
    });
  }

  /// An optional field: absent means "not set" (shown as `default_text`, or "none").
  template <class T>
  ParamTable& field(std::string key, std::optional<T> S::*member, FieldOpts o) {
    ParamSpec spec = base_spec<T>(std::move(key), o);
    spec.default_text = o.default_text.empty() ? "none" : o.default_text;
    return add(std::move(spec), o.required, [member, o](const InputNode& n, S& out) {
      out.*member = param_detail::read_checked<T>(n, o);
    });
  }

  /// A field of unit type T written in the file as a plain number in a fixed unit that its key names
  /// (`depreciation_years: 5`): `from` turns the number into T, `to` turns T back for the shown default. The
  /// bounds in `o` are in that fixed unit, and the parameter is documented as a number.
  template <class T>
  ParamTable& field_as_number(std::string key, T S::*member, T (*from)(double), double (*to)(T), FieldOpts o) {
    ParamSpec spec = base_spec<double>(std::move(key), o);
    spec.default_text =
        !o.default_text.empty() ? o.default_text : o.required ? "" : param_detail::to_text(to(S{}.*member));
    return add(std::move(spec), o.required, [member, o, from](const InputNode& n, S& out) {
      out.*member = from(param_detail::read_checked<double>(n, o));
    });
  }

  /// A field whose value is one of an enum's names.
  template <class E>
  ParamTable& choice(std::string key, E S::*member, const EnumTable<E>& names, FieldOpts o) {
    ParamSpec spec;
    spec.key = std::move(key);
    spec.type = ParamType::choice;
    spec.help = std::move(o.help);
    spec.required = o.required;
    spec.choices = names.names();
    spec.default_text = !o.default_text.empty() ? o.default_text : o.required ? "" : std::string(names.name(S{}.*member));
    spec.check = [&names](const InputNode& n) { (void)param_detail::read_choice(n, names); };
    return add(std::move(spec), o.required, [member, &names](const InputNode& n, S& out) {
      out.*member = param_detail::read_choice(n, names);
    });
  }

  /// A nested mapping read by another table (copied: tables are small) into the member `member`.
  template <class C>
  ParamTable& section(C S::*member, const ParamTable<C>& sub, bool required = false) {
    ParamSection s = sub.schema();
    s.required = required;
    const std::string key = s.key;
    schema_.sections.push_back(std::move(s));
    entries_.push_back({key, required, [member, sub](const InputNode& n, S& out) { sub.read(n, out.*member); }});
    return *this;
  }

  /// A nested mapping whose keys fill fields of this same struct (`training.grad_compression.ratio` is a
  /// field of TrainingConfig).
  ParamTable& section(const ParamTable<S>& sub, bool required = false) {
    ParamSection s = sub.schema();
    s.required = required;
    const std::string key = s.key;
    schema_.sections.push_back(std::move(s));
    entries_.push_back({key, required, [sub](const InputNode& n, S& out) { sub.read(n, out); }});
    return *this;
  }

  /// A parameter read by hand-written code (a reference to another file, a value spanning several fields).
  /// `spec.check` should parse a value the way `read` does, for forms and sweep axes.
  ParamTable& custom(ParamSpec spec, Reader read) {
    const bool required = spec.required;
    return add(std::move(spec), required, std::move(read));
  }
  /// A nested mapping read by hand-written code, documented by `schema`.
  ParamTable& custom_section(ParamSection schema, Reader read) {
    const std::string key = schema.key;
    const bool required = schema.required;
    schema_.sections.push_back(std::move(schema));
    entries_.push_back({key, required, std::move(read)});
    return *this;
  }

  /// A check across fields, run after every key of the section was read (at the section's node).
  ParamTable& check(std::function<void(const InputNode& section, S& out)> f) {
    checks_.push_back(std::move(f));
    return *this;
  }

  /// Reads the section into `out` (fields absent from the file keep their value in `out`). Throws InputError
  /// for an unknown or missing key or a bad value, located at the offending key.
  void read(const InputNode& section, S& out) const {
    section.allow_only(schema_.keys());
    for (const auto& e : entries_) {
      if (auto v = section.find(e.key)) {
        e.read(*v, out);
      } else if (e.required) {
        (void)section.at(e.key);  // throws "missing key"
      }
    }
    for (const auto& c : checks_) c(section, out);
    section.finish();
  }

  /// Reads the keys `section` holds over `out` as read() does, requiring none and leaving every other field as it
  /// is: an overlay of settings over a struct built elsewhere (a validation row's stated settings). The whole-
  /// section checks, which fill defaults for absent keys, are not run.
  void read_overlay(const InputNode& section, S& out) const {
    section.allow_only(schema_.keys());
    for (const auto& e : entries_) {
      if (auto v = section.find(e.key)) e.read(*v, out);
    }
    section.finish();
  }

  [[nodiscard]] const ParamSection& schema() const noexcept { return schema_; }

 private:
  struct Entry {
    std::string key;
    bool required;
    Reader read;
  };

  template <class T>
  static ParamSpec base_spec(std::string key, const FieldOpts& o) {
    ParamSpec spec;
    spec.key = std::move(key);
    spec.type = param_detail::TypeOf<T>::value;
    spec.help = o.help;
    spec.required = o.required;
    spec.min = o.positive ? std::optional<double>(0.0) : o.min;
    spec.min_exclusive = o.positive;
    if (o.positive && o.min) spec.min = *o.min;
    spec.max = o.max;
    spec.check = [o](const InputNode& n) { (void)param_detail::read_checked<T>(n, o); };
    return spec;
  }

  ParamTable& add(ParamSpec spec, bool required, Reader read) {
    entries_.push_back({spec.key, required, std::move(read)});
    schema_.params.push_back(std::move(spec));
    return *this;
  }

  ParamSection schema_;
  std::vector<Entry> entries_;
  std::vector<std::function<void(const InputNode&, S&)>> checks_;
};

}  // namespace cs
