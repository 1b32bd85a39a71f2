// A sweep results database on a chart: any output against any axis or output (the scaling curve of time to
// train against GPU count, time against cost), the Pareto front of the two (both minimised) drawn through the
// points no other point beats, and a click on a point loading its scenario into the editor.
#pragma once

#include <QWidget>

#include <optional>
#include <vector>

#include "gui/sweep_results.hpp"

class QChartView;
class QCheckBox;
class QComboBox;
class QLabel;

namespace cs::gui {

class SweepView : public QWidget {
  Q_OBJECT

 public:
  explicit SweepView(QWidget* parent = nullptr);
  /// Reads `path`; on failure keeps what was shown and returns the reason.
  std::optional<QString> open(const QString& path);
  /// Plots `y` against `x` (field names as in numeric_fields()).
  void set_fields(const QString& x, const QString& y);
  void set_pareto(bool on);
  /// Points on the chart (status ok, both values present) and on the drawn front.
  [[nodiscard]] int plotted_count() const { return static_cast<int>(plotted_.size()); }
  [[nodiscard]] int front_count() const { return front_count_; }
  /// As a click on the i-th plotted point: emits point_activated for it.
  void activate_point(int i);

 Q_SIGNALS:
  void open_requested();
  /// The user picked a point: its label and the scenario it ran.
  void point_activated(const QString& label, const QString& scenario_yaml);

 private:
  void replot();

  std::optional<SweepResults> results_;
  std::vector<const SweepPoint*> plotted_;
  int front_count_ = 0;
  QLabel* source_ = nullptr;
  QComboBox* x_ = nullptr;
  QComboBox* y_ = nullptr;
  QCheckBox* pareto_ = nullptr;
  QChartView* view_ = nullptr;
};

}  // namespace cs::gui
