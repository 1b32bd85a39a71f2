// The numbers a planner looks at first - step time and its error band, tokens/s, MFU, time to train, memory,
// power, racks, capex, TCO, cost of the run - in human units, each with its source on hover, beside the pinned
// baseline and the change from it. Warnings sit on the row they concern; the rest are listed below the table.
#pragma once

#include <QString>
#include <QWidget>

#include <functional>
#include <vector>

#include "gui/result_warnings.hpp"
#include "gui/run_record.hpp"

class QGridLayout;
class QLabel;

namespace cs::gui {

class SummaryPanel : public QWidget {
  Q_OBJECT

 public:
  /// One row: how to read the number from a run, print it, say where it comes from, and which way is better.
  struct Metric {
    QString id;      ///< "step_time", the labels' objectNames are "summary.<id>.value|baseline|delta"
    QString title;
    std::function<double(const RunRecord&)> read;
    std::function<QString(double)> format;
    std::function<QString(const RunRecord&)> source;
    bool lower_is_better = true;
    WarningTopic topic = WarningTopic::general;
  };

  explicit SummaryPanel(QWidget* parent = nullptr);

  /// Shows `current` against `baseline` (either may be null).
  void show_runs(const RunRecordPtr& current, const RunRecordPtr& baseline);
  [[nodiscard]] static const std::vector<Metric>& metrics();
  /// The text shown in a cell: column "value", "baseline" or "delta".
  [[nodiscard]] QString text(const QString& id, const QString& column) const;

 private:
  QGridLayout* grid_ = nullptr;
  QLabel* heading_ = nullptr;
  QLabel* warnings_ = nullptr;
};

}  // namespace cs::gui
