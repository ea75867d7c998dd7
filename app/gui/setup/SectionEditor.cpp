#include "SectionEditor.h"

#include "SweepEditor.h"

#include <QHash>
#include <mutex>

namespace tb::gui {
namespace {

struct Registry {
    std::mutex mutex;
    QHash<QString, SectionEditors::Factory> factories;
};

// The workbench's own editors are listed here (tb_gui is a static library: a registration in an
// editor's own file would be dropped with its object file); others register with add().
Registry& registry()
{
    static Registry r;
    static const bool builtIn = [] {
        r.factories.insert(SweepEditor::editorId(), [](QWidget* parent) -> SectionEditor* { return new SweepEditor(parent); });
        return true;
    }();
    Q_UNUSED(builtIn);
    return r;
}

} // namespace

bool SectionEditors::add(const QString& id, Factory factory)
{
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    if (id.isEmpty() || !factory || r.factories.contains(id))
        return false;
    r.factories.insert(id, std::move(factory));
    return true;
}

SectionEditor* SectionEditors::create(const QString& id, QWidget* parent)
{
    Factory f;
    {
        Registry& r = registry();
        std::lock_guard lock(r.mutex);
        f = r.factories.value(id);
    }
    return f ? f(parent) : nullptr;
}

QStringList SectionEditors::ids()
{
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    QStringList out = r.factories.keys();
    out.sort();
    return out;
}

} // namespace tb::gui
