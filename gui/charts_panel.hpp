// The result charts, one tab each, every one showing the current run beside the pinned baseline: the step
// breakdown, memory per GPU against capacity and the 90% line, power per part up to the meter, the yearly cost
// split, build-vs-rent cost against utilisation with the break-even points, an inference service's latency
// distributions, and the step timeline. A tab
// whose topic has a warning shows it above its chart and carries a mark on its title.
#pragma once

#include <QTabWidget>

#include "gui/run_record.hpp"

class QLabel;
class QChart;
class QChartView;

namespace cs::gui {

class TimelineView;

class ChartsPanel : public QTabWidget {
  Q_OBJECT

 public:
  explicit ChartsPanel(QWidget* parent = nullptr);
  void show_runs(const RunRecordPtr& current, const RunRecordPtr& baseline);
  /// The chart of a tab ("breakdown", "memory", "power", "cost", "rent", "latency"), for tests and screenshots.
  [[nodiscard]] QChart* chart(const QString& name) const;

 private:
  struct Page {
    QString name;
    QLabel* warning = nullptr;
    QChartView* view = nullptr;
  };
  Page& page(const QString& name);
  void add_page(const QString& name, const QString& title);
  void set_warnings(const QString& name, const QStringList& warnings);

  std::vector<Page> pages_;
  TimelineView* timeline_ = nullptr;
};

}  // namespace cs::gui
