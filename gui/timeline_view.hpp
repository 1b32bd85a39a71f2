// The replayed step as a timeline: one row per stream (compute, pp comm, dp comm, param gather) of each
// pipeline stage's representative GPU, one box per span - the same spans the Perfetto trace holds. Painted
// directly (a step has thousands of spans; a chart series per box would be slow). Hover names the span.
#pragma once

#include <QWidget>

#include <vector>

#include "gui/run_record.hpp"

namespace cs::gui {

class TimelineView : public QWidget {
  Q_OBJECT

 public:
  explicit TimelineView(QWidget* parent = nullptr);
  void show_run(const RunRecordPtr& run);
  /// Rows shown ("stage 0 compute", ...), in order.
  [[nodiscard]] QStringList rows() const;

 protected:
  void paintEvent(QPaintEvent* event) override;
  bool event(QEvent* e) override;

 private:
  struct Row {
    int stage = 0;
    QString stream;
    std::vector<const Span*> spans;
  };
  [[nodiscard]] QRectF span_rect(int row, const Span& s) const;

  RunRecordPtr run_;
  std::vector<Row> rows_;
  double end_s_ = 0;
};

}  // namespace cs::gui
