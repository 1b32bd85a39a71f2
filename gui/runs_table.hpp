// The runs of the session, newest last, with their headline numbers. Double-click a row (or press Enter) to
// take that run's scenario back into the editor; the baseline's row is marked.
#pragma once

#include <QTableWidget>

#include <vector>

#include "gui/run_record.hpp"

namespace cs::gui {

class RunsTable : public QTableWidget {
  Q_OBJECT

 public:
  explicit RunsTable(QWidget* parent = nullptr);
  void add_run(const RunRecordPtr& run);
  /// Marks the row of the run with id `baseline_id` (0: none).
  void mark_baseline(int baseline_id);
  [[nodiscard]] RunRecordPtr run_at(int row) const;
  [[nodiscard]] const std::vector<RunRecordPtr>& runs() const noexcept { return runs_; }

 Q_SIGNALS:
  /// The user asked to go back to `run`.
  void run_activated(cs::gui::RunRecordPtr run);

 protected:
  void keyPressEvent(QKeyEvent* event) override;

 private:
  std::vector<RunRecordPtr> runs_;
};

}  // namespace cs::gui
