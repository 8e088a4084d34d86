from django.urls import path

from annotations.views import adjudication, labelling, preannotation, projects, report

app_name = "annotations"
urlpatterns = [
    path("", labelling.queue, name="queue"),
    path("recipes/<int:pk>/", labelling.label, name="label"),
    path("recipes/<int:pk>/submit/", labelling.submit, name="submit"),
    path("items/<int:pk>/label/", labelling.save, name="save"),
    path("projects/", projects.project_list, name="projects"),
    path("projects/new/", projects.project_new, name="project_new"),
    path("scenarios/<int:pk>/label/", projects.label_scenario, name="label_scenario"),
    path("projects/<int:pk>/", projects.project_detail, name="project"),
    path("projects/<int:pk>/import/", projects.project_import, name="import"),
    path("projects/<int:pk>/export/", projects.project_export, name="export"),
    path("projects/<int:pk>/agreement/", report.report, name="report"),
    path("projects/<int:pk>/adjudicate/", adjudication.adjudicate, name="adjudicate"),
    path("projects/<int:pk>/gold/", adjudication.save_gold, name="save_gold"),
    path("projects/<int:pk>/gold/unanimous/", adjudication.accept_unanimous, name="accept_unanimous"),
    path("projects/<int:pk>/gold/apply/", adjudication.apply_gold, name="apply_gold"),
    path("projects/<int:pk>/preannotate/", preannotation.start, name="preannotate"),
    path("projects/<int:pk>/suggestions/", preannotation.toggle_suggestions, name="suggestions"),
    path("runs/<int:pk>/", preannotation.run_status, name="run"),
]
