#include "sim/facility/reliability_model.hpp"

#include <cmath>

namespace cs {

Time young_interval(Time checkpoint_write, Time mtbf) {
  return Time::from_seconds(std::sqrt(2.0 * checkpoint_write.seconds() * mtbf.seconds()));
}

Time daly_interval(Time checkpoint_write, Time mtbf) {
  const double d = checkpoint_write.seconds();
  const double m = mtbf.seconds();
  if (d >= 2.0 * m) return mtbf;
  const double x = d / (2.0 * m);
  return Time::from_seconds(std::sqrt(2.0 * d * m) * (1.0 + std::sqrt(x) / 3.0 + x / 9.0) - d);
}

double daly_goodput(Time interval, Time checkpoint_write, Time restart, Time mtbf) {
  const double m = mtbf.seconds();
  const double tau = interval.seconds();
  const double wall_per_solve =
      m * std::exp(restart.seconds() / m) * std::expm1((tau + checkpoint_write.seconds()) / m) / tau;
  return 1.0 / wall_per_solve;
}

int poisson_quantile(double mean, double confidence) {
  double term = std::exp(-mean);  // P(X = 0)
  double cdf = term;
  int k = 0;
  while (cdf < confidence && k < 1000000) {
    ++k;
    term *= mean / k;
    cdf += term;
  }
  return k;
}

ReliabilityReport compute_reliability(const ReliabilityConfig& c, const ClusterInventory& inv, const RunProfile& run,
                                      Time step_time) {
  ReliabilityReport r;
  const double nodes = inv.node_count;
  const double gpus = inv.gpu_count();
  const double links = nodes * inv.node.nics_per_node;
  const auto per_hour = [](Time mtbf) { return 3600.0 / mtbf.seconds(); };
  r.gpu_failures_per_hour = gpus * per_hour(c.gpu_mtbf);
  r.node_failures_per_hour = nodes * per_hour(c.node_mtbf);
  r.link_failures_per_hour = links * per_hour(c.link_mtbf);
  r.software_failures_per_hour = nodes * per_hour(c.software_mtbf);
  const double total =
      r.gpu_failures_per_hour + r.node_failures_per_hour + r.link_failures_per_hour + r.software_failures_per_hour;
  r.mtbf = Time::from_seconds(3600.0 / total);

  r.checkpoint_size = Bytes{run.parameter_count * c.checkpoint_bytes_per_parameter};
  r.checkpoint_write = r.checkpoint_size / (c.write_bandwidth_per_node * nodes);
  r.checkpoint_restore = r.checkpoint_size / (c.read_bandwidth_per_node * nodes);
  r.restart_time = c.restart_overhead + r.checkpoint_restore;
  r.young_interval = young_interval(r.checkpoint_write, r.mtbf);
  r.daly_interval = daly_interval(r.checkpoint_write, r.mtbf);
  r.interval_used = c.checkpoint_interval ? *c.checkpoint_interval : r.daly_interval;
  r.goodput = daly_goodput(r.interval_used, r.checkpoint_write, r.restart_time, r.mtbf);

  r.ideal_train_time = Time::from_seconds(run.steps() * step_time.seconds());
  r.effective_train_time = Time::from_seconds(r.ideal_train_time.seconds() / r.goodput);
  r.expected_interruptions = r.effective_train_time / r.mtbf;

  // Nodes out for repair: GPU, host and NIC-link faults take their node out for repair_time; software faults
  // do not. Little's law: mean down = arrival rate x repair time.
  const double hardware_per_hour = r.gpu_failures_per_hour + r.node_failures_per_hour + r.link_failures_per_hour;
  r.expected_nodes_down = hardware_per_hour * c.repair_time.seconds() / 3600.0;
  r.spare_nodes = c.spare_nodes ? *c.spare_nodes : poisson_quantile(r.expected_nodes_down, c.spare_confidence);
  return r;
}

}  // namespace cs
