from django.urls import path

from memadmin.pages.insights import views as insights

app_name = "insights"

urlpatterns = [
    path("graph/", insights.graph_page, name="graph"),
    path("graph/data/", insights.graph_data, name="graph-data"),
    path("graph/around/<str:name>/", insights.around_page, name="around"),
    path("graph/around/<str:name>/data/", insights.around_data, name="around-data"),
    path("budget/", insights.budget_page, name="budget"),
    path("budget/set-load/", insights.set_load_index, name="set-load"),
    path("budget/set-priority/", insights.set_priority, name="set-priority"),
    path("hygiene/", insights.hygiene_page, name="hygiene"),
    path("hygiene/verify/", insights.verify, name="verify"),
    path("hygiene/compare/", insights.compare, name="compare"),
    path("hygiene/consolidation/", insights.consolidation_page, name="consolidation"),
    path("hygiene/<str:section>/", insights.hygiene_section, name="hygiene-section"),
]
