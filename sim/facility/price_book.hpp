// The price book: every price the TCO uses, each with its source, date and quality tag, loaded from
// data/pricebook.yaml (format in docs/tco.md). Hardware items may also carry their power draw, so that the
// power model and the bill of materials read one traceable entry per part.
#pragma once

#include <optional>
#include <utility>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/core/units.hpp"
#include "sim/facility/money_units.hpp"

namespace cs {

class InputNode;

struct PriceItem {
  std::string id;       ///< unique key, e.g. "qm9700"
  std::string name;     ///< what it is, in words
  std::string model;    ///< hardware model as topology files name it ("DGX H100", "QM9700"); may be empty
  /// For a rental rate per GPU-hour: the GPU it rents ("H100"), matched against the cluster's GPU; may be empty.
  std::string gpu;
  QuotedPrice price;    ///< amount and what it is per
  std::string source;   ///< where the figure comes from (document, table, URL)
  std::string date;     ///< when the price was observed: YYYY, YYYY-MM or YYYY-MM-DD; empty for an override
  std::string quality;  ///< tco_facts.md tags: P primary, S secondary, E estimate, D derived (e.g. "S/E")
  std::optional<Watts> power_typical;  ///< typical draw of one item, when it is a powered part
  std::optional<Watts> power_max;      ///< maximum draw of one item
  std::string power_source;            ///< where the power figures come from
  std::optional<int> rack_units;       ///< height in a rack, for rack-mounted parts
  SourceLocation where;                ///< the entry in the price book (or the scenario override)
  bool overridden = false;             ///< replaced by a scenario's `facility.price_overrides`
};

/// Where a price is asked for: an entry id and, when it came from a scenario, the key that named it, so that an
/// unknown id or a wrong unit is reported at that key.
struct PriceRef {
  PriceRef() = default;
  PriceRef(std::string id_) : id(std::move(id_)) {}  // NOLINT: implicit, a bare id is a reference
  PriceRef(const char* id_) : id(id_) {}             // NOLINT
  PriceRef(std::string id_, SourceLocation where_, std::string key_path_)
      : id(std::move(id_)), where(std::move(where_)), key_path(std::move(key_path_)) {}
  std::string id;
  SourceLocation where;
  std::string key_path;
};

/// A scenario's replacement for one entry's price (facility.price_overrides).
struct PriceOverride {
  std::string id;
  std::string price;  ///< as written, with its unit
  SourceLocation where;
  std::string key_path;
};

/// A reference to a price-book entry as printed beside a number: "qm9700 (NVIDIA ..., 2024-08, S/E)".
[[nodiscard]] std::string cite(const PriceItem& item);

class PriceBook {
 public:
  static constexpr int kFormatVersion = 1;

  /// Loads a price book file. Throws InputError (file:line:column: key: message) for anything wrong.
  [[nodiscard]] static PriceBook load(const std::string& path);
  /// The shipped price book, data/pricebook.yaml in the data directory.
  [[nodiscard]] static PriceBook load_default();
  /// Parses a price book document (the root mapping).
  [[nodiscard]] static PriceBook parse(const InputNode& root);

  /// Replaces prices; each override must keep its entry's unit and becomes the entry's source (quality E, no
  /// date).
  /// Throws InputError at the override for an unknown id or a wrong unit.
  void apply_overrides(const std::vector<PriceOverride>& overrides);

  /// The entry `ref.id`; throws InputError at `ref` (or the price book) listing the known ids when absent.
  [[nodiscard]] const PriceItem& at(const PriceRef& ref) const;
  [[nodiscard]] bool contains(std::string_view id) const noexcept;
  /// The entry whose `model` is `model` (as topology files name hardware), or nullptr.
  [[nodiscard]] const PriceItem* find_model(std::string_view model) const noexcept;
  /// The same, throwing InputError ("no price-book entry has model ...") naming `what` when there is none.
  [[nodiscard]] const PriceItem& for_model(std::string_view model, std::string_view what) const;
  /// The entry `ref.id`, which must be priced in `unit`; throws InputError at `ref` otherwise.
  [[nodiscard]] const PriceItem& at(const PriceRef& ref, PriceUnit unit) const;

  [[nodiscard]] Dollars each(const PriceRef& ref) const;
  [[nodiscard]] DollarRate hourly(const PriceRef& ref) const;
  [[nodiscard]] DollarRate yearly(const PriceRef& ref) const;
  [[nodiscard]] EnergyPrice energy(const PriceRef& ref) const;
  [[nodiscard]] CapacityRent capacity(const PriceRef& ref) const;
  /// The entry's typical (or, when `maximum`, maximum) power, falling back to the other figure when only one is
  /// known; throws InputError at `ref` when it has neither.
  [[nodiscard]] Watts power(const PriceRef& ref, bool maximum) const;

  [[nodiscard]] const std::vector<PriceItem>& items() const noexcept { return items_; }
  [[nodiscard]] const std::string& file() const noexcept { return file_; }

 private:
  [[nodiscard]] const PriceItem* find(std::string_view id) const noexcept;
  std::vector<PriceItem> items_;
  std::string file_;
};

}  // namespace cs
