// The bill of materials: every part of the cluster as a priced line that names its price-book entry.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sim/core/units.hpp"
#include "sim/facility/cluster_inventory.hpp"
#include "sim/facility/power_model.hpp"
#include "sim/facility/price_book.hpp"

namespace cs {

struct BomLine {
  std::string category;  ///< "compute", "network", "storage", "facility", "spares"
  std::string item;      ///< what the line is, e.g. "compute leaf switch: qm9700"
  double quantity = 0.0;
  std::string quantity_unit;  ///< "each" or "TB"
  Dollars unit_price;
  Dollars total;
  std::string price_id;   ///< price-book entry
  std::string citation;   ///< cite() of that entry
};

struct BillOfMaterials {
  std::vector<BomLine> lines;
  [[nodiscard]] Dollars total() const noexcept;
  [[nodiscard]] Dollars total(std::string_view category) const noexcept;
};

/// Prices the inventory, the racks of `racks` and `spare_nodes` extra nodes. Throws InputError when a part's
/// price-book entry is missing or not priced per item (per TB for storage).
[[nodiscard]] BillOfMaterials build_bom(const ClusterInventory& inventory, const RackPlan& racks, int spare_nodes,
                                        const PriceRef& rack_price, const PriceBook& book);

}  // namespace cs
