from django.urls import path

from studies.views import analysis, design, exports, lobby, monitor, participant

app_name = "studies"
urlpatterns = [
    path("", design.study_list, name="list"),
    path("<int:pk>/", design.design, name="design"),
    path("<int:pk>/basics/", design.save_basics, name="save_basics"),
    path("<int:pk>/status/", design.set_status, name="set_status"),
    path("<int:pk>/conditions/", design.add_condition, name="add_condition"),
    path("<int:pk>/conditions/<int:condition_pk>/remove/", design.remove_condition, name="remove_condition"),
    path("<int:pk>/scenarios/", design.add_scenario, name="add_scenario"),
    path("<int:pk>/scenarios/<int:row_pk>/remove/", design.remove_scenario, name="remove_scenario"),
    path("<int:pk>/pages/", design.add_page, name="add_page"),
    path("<int:pk>/pages/<int:page_pk>/remove/", design.remove_page, name="remove_page"),
    path("<int:pk>/items/", design.save_item, name="add_item"),
    path("<int:pk>/items/<int:item_pk>/", design.save_item, name="save_item"),
    path("<int:pk>/items/<int:item_pk>/remove/", design.remove_item, name="remove_item"),
    path("<int:pk>/items/reset/", design.reset_items, name="reset_items"),
    path("<int:pk>/pilots/delete/", design.delete_pilots, name="delete_pilots"),
    path("<int:pk>/pilots/run/", design.run_pilots, name="run_pilots"),
    path("<int:pk>/pilots/runs/<int:run_pk>/", design.pilot_run, name="pilot_run"),
    path("<int:pk>/monitor/", monitor.monitor, name="monitor"),
    path("<int:pk>/participants/<int:participant_pk>/drop/", monitor.drop, name="drop"),
    path("<int:pk>/participants/<int:participant_pk>/message/", monitor.message, name="message"),
    path("<int:pk>/participants/<int:participant_pk>/release/", monitor.release, name="release"),
    path("<int:pk>/analysis/", analysis.analysis, name="analysis"),
    path("<int:pk>/exports/", exports.exports_page, name="exports"),
    path("<int:pk>/exports/dictionary.<str:fmt>", exports.dictionary, name="dictionary"),
    path("<int:pk>/exports/bonuses.csv", exports.bonuses, name="bonuses"),
    path("<int:pk>/exports/<str:table>.<str:fmt>", exports.download, name="export"),
    path("<int:pk>/exports/jobs/", exports.start_job, name="start_export"),
    path("<int:pk>/exports/jobs/<int:job_pk>/", exports.job_status, name="export_job"),
    path("<int:pk>/exports/jobs/<int:job_pk>/download/", exports.job_download, name="export_job_download"),
    # The participant's side (no account needed).
    path("s/<slug:slug>/", participant.entry, name="entry"),
    path("s/<slug:slug>/step/", participant.step, name="step"),
    path("s/<slug:slug>/lobby/", lobby.lobby, name="lobby"),
]
