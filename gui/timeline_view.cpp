#include "gui/timeline_view.hpp"

#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <map>

#include "gui/human_units.hpp"

namespace cs::gui {
namespace {

constexpr int kLabelWidth = 150;
constexpr int kRowHeight = 18;
constexpr int kTop = 28;
constexpr int kAxis = 24;

QColor span_color(const Span& s) {
  if (s.stream == "compute") {
    if (s.name.rfind("F ", 0) == 0) return QColor("#3498db");
    if (s.name.rfind("B ", 0) == 0) return QColor("#1a5276");
    if (s.name.rfind("W ", 0) == 0) return QColor("#d4ac0d");  // a zero-bubble schedule's weight gradient
    return QColor("#8e44ad");  // optimizer step
  }
  if (s.stream == "pp comm") return QColor("#e67e22");
  if (s.stream == "dp comm") return QColor("#27ae60");
  return QColor("#c0392b");
}

int stream_order(const std::string& s) {
  if (s == "compute") return 0;
  if (s == "pp comm") return 1;
  if (s == "dp comm") return 2;
  return 3;
}

}  // namespace

TimelineView::TimelineView(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setMinimumHeight(200);
  setObjectName("timeline");
}

void TimelineView::show_run(const RunRecordPtr& run) {
  run_ = run;
  rows_.clear();
  end_s_ = 0;
  if (run) {
    std::map<std::pair<int, int>, Row> by_key;
    for (const Span& s : run->spans) {
      Row& row = by_key[{s.stage, stream_order(s.stream)}];
      row.stage = s.stage;
      row.stream = QString::fromStdString(s.stream);
      row.spans.push_back(&s);
      end_s_ = std::max(end_s_, s.end.seconds());
    }
    for (auto& [key, row] : by_key) rows_.push_back(std::move(row));
  }
  setMinimumHeight(kTop + 2 * kAxis + kRowHeight * static_cast<int>(rows_.size()) + 16);
  update();
}

QStringList TimelineView::rows() const {
  QStringList out;
  for (const Row& r : rows_) out << QStringLiteral("stage %1 %2").arg(r.stage).arg(r.stream);
  return out;
}

QRectF TimelineView::span_rect(int row, const Span& s) const {
  const double w = std::max(1, width() - kLabelWidth - 12);
  const double scale = end_s_ > 0 ? w / end_s_ : 0;
  const double x0 = kLabelWidth + s.start.seconds() * scale;
  const double x1 = kLabelWidth + s.end.seconds() * scale;
  return QRectF(x0, kTop + row * kRowHeight + 2, std::max(1.0, x1 - x0), kRowHeight - 4);
}

void TimelineView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().base());
  if (!run_) {
    p.drawText(rect(), Qt::AlignCenter, "Run a scenario to see its step timeline.");
    return;
  }
  p.drawText(QRect(8, 4, width() - 16, kTop - 8), Qt::AlignLeft | Qt::AlignVCenter,
             QStringLiteral("One step, %1: a representative GPU per pipeline stage (%2 spans; hover for names)")
                 .arg(format_duration(end_s_))
                 .arg(run_->spans.size()));
  for (std::size_t i = 0; i < rows_.size(); ++i) {
    const int y = kTop + static_cast<int>(i) * kRowHeight;
    if (i % 2 == 1) p.fillRect(QRect(0, y, width(), kRowHeight), palette().alternateBase());
    p.setPen(palette().text().color());
    p.drawText(QRect(6, y, kLabelWidth - 10, kRowHeight), Qt::AlignLeft | Qt::AlignVCenter,
               QStringLiteral("stage %1 %2").arg(rows_[i].stage).arg(rows_[i].stream));
    p.setPen(Qt::NoPen);
    for (const Span* s : rows_[i].spans) {
      p.setBrush(span_color(*s));
      p.drawRect(span_rect(static_cast<int>(i), *s));
    }
  }
  const int axis_y = kTop + static_cast<int>(rows_.size()) * kRowHeight + 4;
  p.setPen(palette().text().color());
  p.drawLine(kLabelWidth, axis_y, width() - 12, axis_y);
  for (int k = 0; k <= 4; ++k) {
    const double t = end_s_ * k / 4.0;
    const int x = kLabelWidth + static_cast<int>((width() - kLabelWidth - 12) * k / 4.0);
    p.drawLine(x, axis_y, x, axis_y + 4);
    const QRect box = k == 4 ? QRect(x - 80, axis_y + 4, 80, kAxis - 6) : QRect(x - 40, axis_y + 4, 80, kAxis - 6);
    p.drawText(box, k == 4 ? Qt::AlignRight : Qt::AlignCenter, k == 0 ? QStringLiteral("0 s") : format_duration(t));
  }
  // Legend: what the colours mean.
  int x = 8;
  const int legend_y = axis_y + kAxis + 4;
  for (const auto& [name, color] : {std::pair{"forward", "#3498db"}, std::pair{"backward (B)", "#1a5276"},
                                    std::pair{"weight grad (W)", "#d4ac0d"},
                                    std::pair{"optimizer", "#8e44ad"}, std::pair{"pp transfer", "#e67e22"},
                                    std::pair{"dp reduction", "#27ae60"}, std::pair{"param gather", "#c0392b"}}) {
    p.fillRect(QRect(x, legend_y + 3, 12, 12), QColor(color));
    const QString label = QString::fromLatin1(name);
    p.drawText(QRect(x + 16, legend_y, 110, 18), Qt::AlignLeft | Qt::AlignVCenter, label);
    x += 24 + p.fontMetrics().horizontalAdvance(label);
  }
}

bool TimelineView::event(QEvent* e) {
  if (e->type() == QEvent::ToolTip && run_) {
    auto* help = static_cast<QHelpEvent*>(e);
    const int row = (help->pos().y() - kTop) / kRowHeight;
    if (help->pos().y() >= kTop && row >= 0 && row < static_cast<int>(rows_.size())) {
      for (const Span* s : rows_[static_cast<std::size_t>(row)].spans) {
        if (span_rect(row, *s).adjusted(-1, 0, 1, 0).contains(help->pos())) {
          QToolTip::showText(help->globalPos(),
                             QStringLiteral("%1\n%2 .. %3 (%4)")
                                 .arg(QString::fromStdString(s->name), format_duration(s->start.seconds()),
                                      format_duration(s->end.seconds()),
                                      format_duration((s->end - s->start).seconds())));
          return true;
        }
      }
    }
    QToolTip::hideText();
    return true;
  }
  return QWidget::event(e);
}

}  // namespace cs::gui
