// A sweep results database on a chart: any output against any axis or output (the scaling curve of time to
// train against GPU count, time against cost), one series per value of a chosen second axis (the GPU type), the
// Pareto front of the two (both minimised) drawn through the points no other point beats, a point's scenario on
// hover, and a click on a point loading its scenario into the editor. Axes are titled in words with units and
// ranged from the data (gui/field_labels.hpp, gui/plot_axis.hpp).
#pragma once

#include <QWidget>

#include <optional>
#include <string>
#include <vector>

#include "gui/sweep_results.hpp"

class QChart;
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
  /// One series per value of the sweep axis `axis`; empty (or "none") for one series of every point.
  void set_series_by(const QString& axis);
  /// The axis the points are split by, empty for none.
  [[nodiscard]] QString series_by() const;
  void set_pareto(bool on);
  /// Points on the chart (status ok, both values present) and on the drawn front.
  [[nodiscard]] int plotted_count() const { return static_cast<int>(plotted_.size()); }
  [[nodiscard]] int front_count() const { return front_count_; }
  /// What hovering the i-th plotted point shows: its axis values (the sweep's label, one per line), then its x
  /// and y in human units.
  [[nodiscard]] QString point_text(int i) const;
  /// The chart shown (owned by the view; replaced on every replot).
  [[nodiscard]] QChart* chart() const;
  /// As a click on the i-th plotted point: emits point_activated for it.
  void activate_point(int i);

 Q_SIGNALS:
  void open_requested();
  /// The user picked a point: its label and the scenario it ran.
  void point_activated(const QString& label, const QString& scenario_yaml);

 private:
  [[nodiscard]] std::string x_field() const;
  [[nodiscard]] std::string y_field() const;
  /// The value of sweep axis `axis` at `p` as written in its label ("h200", "1,024").
  [[nodiscard]] QString axis_value_text(const SweepPoint& p, const std::string& axis) const;
  /// The first axis other than x with more than one value among the points, skipping an axis that x already
  /// determines (zipped with it, as a build stage's model is with its GPU count); empty when there is none.
  [[nodiscard]] std::string default_series_axis() const;
  /// Lists "none" and every axis but x in the series picker, keeping the user's choice where it still applies.
  void fill_series_choices();
  void replot();

  std::optional<SweepResults> results_;
  std::vector<const SweepPoint*> plotted_;   ///< in the database's point order
  int front_count_ = 0;
  std::optional<std::string> chosen_series_; ///< the user's pick ("" for none); unset: the default
  QLabel* source_ = nullptr;
  QComboBox* x_ = nullptr;
  QComboBox* y_ = nullptr;
  QComboBox* series_ = nullptr;
  QCheckBox* pareto_ = nullptr;
  QChartView* view_ = nullptr;
};

}  // namespace cs::gui
