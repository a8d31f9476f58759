from django.urls import path

from memories.views import audit

app_name = "audit"

urlpatterns = [
    path("graph/", audit.graph_page, name="graph"),
    path("graph/data/", audit.graph_data, name="graph-data"),
    path("graph/around/<str:name>/", audit.around_page, name="around"),
    path("graph/around/<str:name>/data/", audit.around_data, name="around-data"),
    path("budget/", audit.budget_page, name="budget"),
    path("budget/set-load/", audit.set_load_index, name="set-load"),
    path("budget/set-priority/", audit.set_priority, name="set-priority"),
    path("hygiene/", audit.hygiene_page, name="hygiene"),
    path("hygiene/verify/", audit.verify, name="verify"),
    path("hygiene/compare/", audit.compare, name="compare"),
    path("hygiene/<str:section>/", audit.hygiene_section, name="hygiene-section"),
]
