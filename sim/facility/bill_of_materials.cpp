#include "sim/facility/bill_of_materials.hpp"

namespace cs {
namespace {

void add_each(BillOfMaterials& bom, const PriceBook& book, std::string category, std::string item, double count,
              const PriceRef& ref) {
  if (count <= 0) return;
  const PriceItem& p = book.at(ref, PriceUnit::each);
  const Dollars unit{p.price.amount};
  bom.lines.push_back({std::move(category), std::move(item), count, "each", unit, unit * count, p.id, cite(p)});
}

}  // namespace

Dollars BillOfMaterials::total() const noexcept {
  Dollars sum;
  for (const auto& l : lines) sum += l.total;
  return sum;
}

Dollars BillOfMaterials::total(std::string_view category) const noexcept {
  Dollars sum;
  for (const auto& l : lines) {
    if (l.category == category) sum += l.total;
  }
  return sum;
}

BillOfMaterials build_bom(const ClusterInventory& inv, const RackPlan& racks, int spare_nodes,
                          const PriceRef& rack_price, const PriceBook& book) {
  BillOfMaterials bom;
  add_each(bom, book, "compute", "GPU node: " + inv.node.price.id, inv.node_count, inv.node.price);
  if (!inv.node.nic_price_id.empty()) {
    add_each(bom, book, "compute", "compute NIC: " + inv.node.nic_price_id,
             static_cast<double>(inv.node_count) * inv.node.nics_per_node, inv.node.nic_price_id);
  }
  for (const SwitchGroup& s : inv.switches) {
    add_each(bom, book, "network", s.fabric + " " + s.tier + " switch: " + s.model.id, s.count, s.model);
  }
  for (const CableGroup& c : inv.cables) {
    const char* medium = c.medium == CableMedium::copper ? "copper" : "optical";
    add_each(bom, book, "network", c.fabric + " " + c.span + " " + medium + " cable: " + c.model.id, c.count, c.model);
  }
  for (const TransceiverGroup& t : inv.transceivers) {
    add_each(bom, book, "network",
             t.fabric + " " + t.span + (t.in_node ? " node-side" : " switch-side") + " transceiver: " + t.model.id,
             t.count, t.model);
  }
  for (const OtherPart& o : inv.other) add_each(bom, book, o.category, o.category + ": " + o.model.id, o.count, o.model);
  if (inv.storage_capacity.value() > 0) {
    const PriceItem& p = book.at(inv.storage_price, PriceUnit::per_terabyte);
    const double tb = inv.storage_capacity.value() / 1e12;
    const Dollars unit{p.price.amount};
    bom.lines.push_back({"storage", "shared storage: " + p.id, tb, "TB", unit, unit * tb, p.id, cite(p)});
  }
  add_each(bom, book, "facility", "rack with PDUs: " + rack_price.id, racks.total_racks(), rack_price);
  add_each(bom, book, "spares", "spare GPU node: " + inv.node.price.id, spare_nodes, inv.node.price);
  if (!inv.node.nic_price_id.empty()) {
    add_each(bom, book, "spares", "spare node NIC: " + inv.node.nic_price_id,
             static_cast<double>(spare_nodes) * inv.node.nics_per_node, inv.node.nic_price_id);
  }
  return bom;
}

}  // namespace cs
