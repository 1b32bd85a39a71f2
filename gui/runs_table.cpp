#include "gui/runs_table.hpp"

#include <QHeaderView>
#include <QKeyEvent>

#include "gui/human_units.hpp"

namespace cs::gui {

RunsTable::RunsTable(QWidget* parent) : QTableWidget(0, 10, parent) {
  setObjectName("runs");
  setHorizontalHeaderLabels({"run", "scenario", "GPUs", "step time", "tokens/s", "MFU", "memory/GPU",
                             "power at meter", "TCO/yr", "run cost"});
  setEditTriggers(QAbstractItemView::NoEditTriggers);
  setSelectionBehavior(QAbstractItemView::SelectRows);
  setSelectionMode(QAbstractItemView::SingleSelection);
  verticalHeader()->hide();
  horizontalHeader()->setSectionResizeMode(1, QHeaderView::Stretch);
  setToolTip("Double-click a run (or press Enter) to load its scenario into the editor.");
  connect(this, &QTableWidget::cellDoubleClicked, this, [this](int row, int) {
    if (RunRecordPtr r = run_at(row)) Q_EMIT run_activated(r);
  });
}

void RunsTable::add_run(const RunRecordPtr& run) {
  runs_.push_back(run);
  const int row = rowCount();
  insertRow(row);
  const QStringList cells{QString("#%1").arg(run->id),
                          QString::fromStdString(run->scenario.name),
                          format_count(run->result.gpus),
                          format_duration(run->number("/step_time_s")),
                          format_rate(run->number("/tokens_per_s"), "tok"),
                          format_percent(run->number("/mfu")),
                          format_bytes(run->number("/peak_memory_bytes")),
                          format_watts(run->number("/power/facility_average_w")),
                          format_dollars_per_year(run->number("/tco/tco_usd_per_year")),
                          format_dollars(run->number("/tco/run_cost_usd"))};
  for (int c = 0; c < cells.size(); ++c) {
    auto* item = new QTableWidgetItem(cells[c]);
    if (c != 1) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    if (c == 1 && !run->file.empty()) item->setToolTip(QString::fromStdString(run->file));
    setItem(row, c, item);
  }
  resizeColumnsToContents();
  horizontalHeader()->setSectionResizeMode(1, QHeaderView::Stretch);
  scrollToBottom();
}

void RunsTable::mark_baseline(int baseline_id) {
  for (int row = 0; row < rowCount(); ++row) {
    const bool base = runs_[static_cast<std::size_t>(row)]->id == baseline_id;
    item(row, 0)->setText(QString("#%1%2").arg(runs_[static_cast<std::size_t>(row)]->id).arg(base ? " (baseline)" : ""));
    for (int c = 0; c < columnCount(); ++c) {
      QFont f = item(row, c)->font();
      f.setBold(base);
      item(row, c)->setFont(f);
    }
  }
  resizeColumnToContents(0);
}

RunRecordPtr RunsTable::run_at(int row) const {
  if (row < 0 || row >= static_cast<int>(runs_.size())) return nullptr;
  return runs_[static_cast<std::size_t>(row)];
}

void RunsTable::keyPressEvent(QKeyEvent* event) {
  if ((event->key() == Qt::Key_Return || event->key() == Qt::Key_Enter) && currentRow() >= 0) {
    if (RunRecordPtr r = run_at(currentRow())) Q_EMIT run_activated(r);
    return;
  }
  QTableWidget::keyPressEvent(event);
}

}  // namespace cs::gui
