// The scenario's forms, generated from the schema (cs::api::schema): a page per top-level section (listed on the left), a group per
// nested section and one widget per parameter chosen by its type - a combo box for a choice, a check box for a
// boolean, a line edit for everything else, where units are typed as in a file ("400Gbps", "0.5us"). Each
// edit is checked at once with the parameter's own check (the message the CLI would print) and written into
// the ScenarioDocument. A new key in the schema appears here without GUI code.
#pragma once

#include <QHash>
#include <QString>
#include <QWidget>

#include "sim/api/clustersim.hpp"

class QListWidget;
class QStackedWidget;
class QFormLayout;
class QLabel;

namespace cs::gui {

class ScenarioDocument;

class ParamForm : public QWidget {
  Q_OBJECT

 public:
  ParamForm(const ParamSection& schema, ScenarioDocument& doc, QWidget* parent = nullptr);

  /// Refills every widget from the document (after Open or a change made elsewhere); clears the marks.
  void reload();
  /// True when no field holds a value its check refuses.
  [[nodiscard]] bool valid() const;
  /// "key.path: message" for each refused field.
  [[nodiscard]] QStringList errors() const;
  /// Marks the field `key_path` with `message` (an error of the whole scenario, located at that key) and shows
  /// its page. Returns false when no field has that path.
  bool mark_error(const QString& key_path, const QString& message);
  /// Shows the page that holds the field `key_path`.
  void show_field(const QString& key_path);
  /// The widget of the parameter `key_path` (its objectName is the path), or nullptr.
  [[nodiscard]] QWidget* field_widget(const QString& key_path) const;
  /// The message shown at the field, empty when it is fine.
  [[nodiscard]] QString field_error(const QString& key_path) const;

 Q_SIGNALS:
  /// The user changed a value; the document has it.
  void edited();
  void validity_changed(bool valid);

 private:
  struct Field {
    const ParamSpec* spec = nullptr;
    QWidget* editor = nullptr;
    QLabel* message = nullptr;
    int tab = 0;
    QString error;           ///< the value's own check
    QString scenario_error;  ///< a whole-scenario error located here (cleared on the next edit)
  };

  void add_section(const ParamSection& section, const QString& prefix, QFormLayout* layout, int tab);
  void add_field(const ParamSpec& spec, const QString& path, QFormLayout* layout, int tab);
  void on_text(const QString& path, const QString& text);
  void show_state(Field& f);

  ScenarioDocument& doc_;
  QListWidget* sections_ = nullptr;
  QStackedWidget* pages_ = nullptr;
  QHash<QString, Field> fields_;
  bool reloading_ = false;
  bool last_valid_ = true;
};

}  // namespace cs::gui
