#include "sim/facility/price_book.hpp"

#include <algorithm>
#include <regex>

#include "sim/core/data_dir.hpp"
#include "sim/input/input_node.hpp"

namespace cs {
namespace {

QuotedPrice price_at(const InputNode& n) {
  try {
    return parse_price(n.as<std::string>());
  } catch (const UnitError& e) {
    n.fail(e.what());
  }
}

Watts watts_at(const InputNode& n) {
  const Watts w = n.as<Watts>();
  n.require(w.value() > 0, "power must be positive");
  return w;
}

bool valid_date(const std::string& s) {
  static const std::regex re(R"(\d{4}(-(0[1-9]|1[0-2])(-(0[1-9]|[12]\d|3[01]))?)?)");
  return std::regex_match(s, re);
}

bool valid_quality(const std::string& s) {
  static const std::regex re(R"([PSED](/[PSED])*)");
  return std::regex_match(s, re);
}

}  // namespace

std::string cite(const PriceItem& item) {
  return item.id + " (" + item.source + (item.date.empty() ? "" : ", " + item.date) + ", " + item.quality + ")";
}

PriceBook PriceBook::load(const std::string& path) { return parse(InputNode::load_file(path)); }

PriceBook PriceBook::load_default() { return load(data_path("data/pricebook.yaml")); }

PriceBook PriceBook::parse(const InputNode& root) {
  PriceBook book;
  book.file_ = root.file();
  const InputNode version = root.at("format_version");
  version.require(version.as<int>() == kFormatVersion,
                  "unsupported price book format_version; this build reads version " +
                      std::to_string(kFormatVersion));
  for (const InputNode& e : root.at("items").elements()) {
    PriceItem item;
    const InputNode id = e.at("id");
    item.id = id.as<std::string>();
    id.require(!item.id.empty(), "id must not be empty");
    id.require(book.find(item.id) == nullptr, "duplicate id \"" + item.id + "\"");
    item.name = e.get<std::string>("name");
    if (auto m = e.find("model")) {
      item.model = m->as<std::string>();
      m->require(book.find_model(item.model) == nullptr, "model \"" + item.model + "\" is already priced by another entry");
    }
    if (auto g = e.find("gpu")) {
      item.gpu = g->as<std::string>();
      g->require(!item.gpu.empty(), "gpu names the GPU a rental rate is for (\"H100\")");
    }
    item.price = price_at(e.at("price"));
    item.source = e.get<std::string>("source");
    e.at("source").require(!item.source.empty(), "every price needs a source");
    const InputNode date = e.at("date");
    item.date = date.as<std::string>();
    date.require(valid_date(item.date), "date must read YYYY, YYYY-MM or YYYY-MM-DD");
    const InputNode quality = e.at("quality");
    item.quality = quality.as<std::string>();
    quality.require(valid_quality(item.quality), "quality must be tags P, S, E or D joined by '/' (\"S/E\")");
    if (auto n = e.find("power_typical")) item.power_typical = watts_at(*n);
    if (auto n = e.find("power_max")) item.power_max = watts_at(*n);
    if (item.power_typical && item.power_max && *item.power_typical > *item.power_max) {
      e.at("power_typical").fail("power_typical exceeds power_max");
    }
    if (item.power_typical || item.power_max) {
      item.power_source = e.get<std::string>("power_source");
    }
    if (auto n = e.find("rack_units")) {
      item.rack_units = n->as<int>();
      n->require(*item.rack_units > 0 && *item.rack_units <= 60, "rack_units must lie in 1 to 60");
    }
    item.where = e.location();
    e.finish();
    book.items_.push_back(std::move(item));
  }
  root.finish();
  return book;
}

void PriceBook::apply_overrides(const std::vector<PriceOverride>& overrides) {
  for (const PriceOverride& o : overrides) {
    const PriceItem& found = at(PriceRef{o.id, o.where, o.key_path});  // throws, located, when unknown
    PriceItem& item = items_[static_cast<std::size_t>(&found - items_.data())];
    try {
      item.price.amount = parse_price_in(o.price, item.price.unit);
    } catch (const UnitError& e) {
      throw InputError(o.where, o.key_path, e.what());
    }
    item.source = "scenario override at " + o.where.file + ":" + std::to_string(o.where.line);
    item.date.clear();
    item.quality = "E";
    item.where = o.where;
    item.overridden = true;
  }
}

const PriceItem* PriceBook::find(std::string_view id) const noexcept {
  const auto it = std::find_if(items_.begin(), items_.end(), [&](const PriceItem& i) { return i.id == id; });
  return it == items_.end() ? nullptr : &*it;
}

bool PriceBook::contains(std::string_view id) const noexcept { return find(id) != nullptr; }

const PriceItem* PriceBook::find_model(std::string_view model) const noexcept {
  if (model.empty()) return nullptr;
  const auto it = std::find_if(items_.begin(), items_.end(), [&](const PriceItem& i) { return i.model == model; });
  return it == items_.end() ? nullptr : &*it;
}

const PriceItem& PriceBook::for_model(std::string_view model, std::string_view what) const {
  if (const PriceItem* item = find_model(model)) return *item;
  throw InputError({file_, 0, 0}, "", "no price-book entry has model \"" + std::string(model) + "\" (the " +
                                          std::string(what) + "); add one with `model:` or pass another price book");
}

const PriceItem& PriceBook::at(const PriceRef& ref) const {
  if (const PriceItem* item = find(ref.id)) return *item;
  std::string known;
  for (const auto& i : items_) known += (known.empty() ? "" : ", ") + i.id;
  const SourceLocation where = ref.where.file.empty() ? SourceLocation{file_, 0, 0} : ref.where;
  throw InputError(where, ref.key_path, "price-book id \"" + ref.id + "\" not found in " + file_ + " (known: " + known + ")");
}

const PriceItem& PriceBook::at(const PriceRef& ref, PriceUnit unit) const {
  const PriceItem& item = at(ref);
  if (item.price.unit != unit) {
    const SourceLocation where = ref.where.file.empty() ? item.where : ref.where;
    throw InputError(where, ref.key_path.empty() ? item.id : ref.key_path,
                     "price-book entry \"" + item.id + "\" is priced in " + std::string(unit_text(item.price.unit)) +
                         " but is used as a price in " + std::string(unit_text(unit)));
  }
  return item;
}

Dollars PriceBook::each(const PriceRef& ref) const { return Dollars{at(ref, PriceUnit::each).price.amount}; }
DollarRate PriceBook::hourly(const PriceRef& ref) const {
  return DollarRate{at(ref, PriceUnit::per_hour).price.amount};
}
DollarRate PriceBook::yearly(const PriceRef& ref) const { return per_year(at(ref, PriceUnit::per_year).price.amount); }
EnergyPrice PriceBook::energy(const PriceRef& ref) const {
  return usd_per_kwh(at(ref, PriceUnit::per_kwh).price.amount);
}
CapacityRent PriceBook::capacity(const PriceRef& ref) const {
  return usd_per_kw_month(at(ref, PriceUnit::per_kw_month).price.amount);
}

Watts PriceBook::power(const PriceRef& ref, bool maximum) const {
  const PriceItem& item = at(ref);
  const std::optional<Watts>& w = maximum ? (item.power_max ? item.power_max : item.power_typical)
                                          : (item.power_typical ? item.power_typical : item.power_max);
  if (!w) {
    throw InputError(ref.where.file.empty() ? item.where : ref.where, ref.key_path.empty() ? item.id : ref.key_path,
                     "price-book entry \"" + item.id + "\" has no power_typical or power_max");
  }
  return *w;
}

}  // namespace cs
