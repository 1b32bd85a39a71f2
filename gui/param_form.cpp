#include "gui/param_form.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QScrollArea>
#include <QHBoxLayout>
#include <QListWidget>
#include <QStackedWidget>
#include <QVBoxLayout>

#include "gui/scenario_document.hpp"

namespace cs::gui {
namespace {

/// The SI base unit bounds are declared in, for the tooltip ("s", "B/s").
QString base_unit(ParamType t) {
  switch (t) {
    case ParamType::time: return "s";
    case ParamType::bytes: return "B";
    case ParamType::bandwidth: return "B/s";
    case ParamType::flops: return "FLOP";
    case ParamType::flop_rate: return "FLOP/s";
    case ParamType::watts: return "W";
    case ParamType::joules: return "J";
    case ParamType::dollars: return "USD";
    case ParamType::dollar_rate: return "USD/h";
    default: return "";
  }
}

QString tooltip(const ParamSpec& p, const QString& path) {
  QString t = "<b>" + path.toHtmlEscaped() + "</b> (" + QString::fromStdString(std::string(to_string(p.type)));
  if (has_unit(p.type)) t += ", e.g. <tt>" + QString::fromStdString(std::string(unit_example(p.type))) + "</tt>";
  t += ")<br>" + QString::fromStdString(p.help).toHtmlEscaped();
  if (p.required) t += "<br>required";
  else if (!p.default_text.empty()) t += "<br>default: <tt>" + QString::fromStdString(p.default_text).toHtmlEscaped() + "</tt>";
  if (p.min || p.max) {
    const QString unit = base_unit(p.type);
    t += "<br>range: " + (p.min ? (p.min_exclusive ? "&gt; " : "&ge; ") + QString::number(*p.min) + " " + unit : QString());
    if (p.min && p.max) t += ", ";
    if (p.max) t += "&le; " + QString::number(*p.max) + " " + unit;
  }
  if (!p.choices.empty()) {
    QStringList names;
    for (const auto& c : p.choices) names << QString::fromStdString(c);
    t += "<br>one of: " + names.join(", ").toHtmlEscaped();
  }
  return t;
}

}  // namespace

ParamForm::ParamForm(const ParamSection& schema, ScenarioDocument& doc, QWidget* parent) : QWidget(parent), doc_(doc) {
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  sections_ = new QListWidget(this);
  sections_->setObjectName("form_sections");
  sections_->setMaximumWidth(110);
  pages_ = new QStackedWidget(this);
  layout->addWidget(sections_);
  layout->addWidget(pages_, 1);
  connect(sections_, &QListWidget::currentRowChanged, pages_, &QStackedWidget::setCurrentIndex);

  const auto new_tab = [this](const QString& title, const QString& help) {
    auto* scroll = new QScrollArea(pages_);
    scroll->setWidgetResizable(true);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    auto* page = new QWidget(scroll);
    auto* form = new QFormLayout(page);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    scroll->setWidget(page);
    const int index = pages_->addWidget(scroll);
    auto* item = new QListWidgetItem(title, sections_);
    item->setToolTip(help);
    return std::pair{form, index};
  };

  // The top-level keys (name, description, format_version) form the first tab; then one tab per section.
  auto [top, top_tab] = new_tab("scenario", QString::fromStdString(schema.help));
  for (const ParamSpec& p : schema.params) add_field(p, QString::fromStdString(p.key), top, top_tab);
  for (const ParamSection& s : schema.sections) {
    auto [form, tab] = new_tab(QString::fromStdString(s.key), QString::fromStdString(s.help));
    add_section(s, QString::fromStdString(s.key), form, tab);
  }
  sections_->setCurrentRow(0);
  reload();
}

void ParamForm::add_section(const ParamSection& section, const QString& prefix, QFormLayout* layout, int tab) {
  if (!section.help.empty()) {
    auto* help = new QLabel(QString::fromStdString(section.help));
    help->setWordWrap(true);
    help->setStyleSheet("color: palette(mid);");
    layout->addRow(help);
  }
  for (const ParamSpec& p : section.params) add_field(p, prefix + "." + QString::fromStdString(p.key), layout, tab);
  for (const ParamSection& s : section.sections) {
    auto* box = new QGroupBox(QString::fromStdString(s.key));
    box->setToolTip(QString::fromStdString(s.help));
    auto* inner = new QFormLayout(box);
    inner->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    add_section(s, prefix + "." + QString::fromStdString(s.key), inner, tab);
    layout->addRow(box);
  }
}

void ParamForm::add_field(const ParamSpec& spec, const QString& path, QFormLayout* layout, int tab) {
  Field f;
  f.spec = &spec;
  f.tab = tab;
  auto* cell = new QWidget;
  auto* v = new QVBoxLayout(cell);
  v->setContentsMargins(0, 0, 0, 0);
  v->setSpacing(1);
  if (spec.type == ParamType::choice) {
    auto* combo = new QComboBox;
    combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    combo->setMinimumContentsLength(8);
    if (!spec.required) combo->addItem("(default: " + QString::fromStdString(spec.default_text) + ")", QString());
    for (const auto& c : spec.choices) combo->addItem(QString::fromStdString(c), QString::fromStdString(c));
    connect(combo, &QComboBox::activated, this, [this, path, combo](int i) { on_text(path, combo->itemData(i).toString()); });
    f.editor = combo;
  } else if (spec.type == ParamType::boolean) {
    auto* box = new QCheckBox;
    connect(box, &QCheckBox::clicked, this, [this, path](bool on) { on_text(path, on ? "true" : "false"); });
    f.editor = box;
  } else {
    auto* edit = new QLineEdit;
    edit->setPlaceholderText(spec.required ? QStringLiteral("required")
                                           : QString::fromStdString(spec.default_text.empty() ? "" : spec.default_text));
    edit->setClearButtonEnabled(true);
    connect(edit, &QLineEdit::textEdited, this, [this, path](const QString& t) { on_text(path, t.trimmed()); });
    f.editor = edit;
  }
  f.editor->setObjectName(path);
  f.editor->setToolTip(tooltip(spec, path));
  f.message = new QLabel;
  f.message->setObjectName(path + ".message");
  f.message->setWordWrap(true);
  f.message->setStyleSheet("color: #c0392b;");
  f.message->hide();
  v->addWidget(f.editor);
  v->addWidget(f.message);
  auto* label = new QLabel(QString::fromStdString(spec.key) + (has_unit(spec.type) ? " [" + base_unit(spec.type) + "]" : ""));
  label->setToolTip(f.editor->toolTip());
  layout->addRow(label, cell);
  fields_.insert(path, f);
}

void ParamForm::reload() {
  reloading_ = true;
  for (auto it = fields_.begin(); it != fields_.end(); ++it) {
    Field& f = it.value();
    const std::optional<std::string> v = doc_.value(it.key().toStdString());
    const QString text = v ? QString::fromStdString(*v) : QString();
    if (auto* combo = qobject_cast<QComboBox*>(f.editor)) {
      const int i = combo->findData(text);
      if (i >= 0) {
        combo->setCurrentIndex(i);
      } else {
        combo->addItem(text, text);  // a value the schema refuses: shown, and marked below
        combo->setCurrentIndex(combo->count() - 1);
      }
    } else if (auto* box = qobject_cast<QCheckBox*>(f.editor)) {
      box->setChecked((v ? *v : f.spec->default_text) == "true");
    } else if (auto* edit = qobject_cast<QLineEdit*>(f.editor)) {
      edit->setText(text);
    }
    f.scenario_error.clear();
    f.error.clear();
    if (v && !v->empty()) {
      if (auto msg = f.spec->check_text(*v, it.key().toStdString())) f.error = QString::fromStdString(*msg);
    }
    show_state(f);
  }
  reloading_ = false;
  last_valid_ = valid();
  Q_EMIT validity_changed(last_valid_);
}

void ParamForm::on_text(const QString& path, const QString& text) {
  if (reloading_) return;
  Field& f = fields_[path];
  f.scenario_error.clear();
  f.error.clear();
  if (text.isEmpty()) {
    if (f.spec->required) f.error = "missing key";
  } else if (auto msg = f.spec->check_text(text.toStdString(), path.toStdString())) {
    f.error = QString::fromStdString(*msg);
  }
  show_state(f);
  doc_.set_value(path.toStdString(), text.toStdString());
  Q_EMIT edited();
  const bool now_valid = valid();
  if (now_valid != last_valid_) {
    last_valid_ = now_valid;
    Q_EMIT validity_changed(now_valid);
  }
}

void ParamForm::show_state(Field& f) {
  const QString msg = !f.error.isEmpty() ? f.error : f.scenario_error;
  f.message->setText(msg);
  f.message->setVisible(!msg.isEmpty());
  f.editor->setProperty("invalid", !msg.isEmpty());
  f.editor->setStyleSheet(msg.isEmpty() ? QString() : QStringLiteral("border: 2px solid #c0392b;"));
}

bool ParamForm::valid() const {
  for (const Field& f : fields_) {
    if (!f.error.isEmpty()) return false;
  }
  return true;
}

QStringList ParamForm::errors() const {
  QStringList out;
  for (auto it = fields_.begin(); it != fields_.end(); ++it) {
    if (!it->error.isEmpty()) out << it.key() + ": " + it->error;
  }
  out.sort();
  return out;
}

bool ParamForm::mark_error(const QString& key_path, const QString& message) {
  auto it = fields_.find(key_path);
  if (it == fields_.end()) return false;
  it->scenario_error = message;
  show_state(*it);
  sections_->setCurrentRow(it->tab);
  it->editor->setFocus();
  return true;
}

void ParamForm::show_field(const QString& key_path) {
  auto it = fields_.find(key_path);
  if (it != fields_.end()) sections_->setCurrentRow(it->tab);
}

QWidget* ParamForm::field_widget(const QString& key_path) const {
  auto it = fields_.find(key_path);
  return it == fields_.end() ? nullptr : it->editor;
}

QString ParamForm::field_error(const QString& key_path) const {
  auto it = fields_.find(key_path);
  if (it == fields_.end()) return {};
  return !it->error.isEmpty() ? it->error : it->scenario_error;
}

}  // namespace cs::gui
