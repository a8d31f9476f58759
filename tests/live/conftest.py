import pytest

from memadmin.accounts import tokens
from tests.api.conftest import Api, make_user
from tests.reliability.conftest import Served


@pytest.fixture
def narrow_server(tmp_path):
    """A store served by one gunicorn worker with two request threads."""
    server = Served(tmp_path, workers=1, env={"MEMADMIN_THREADS": "2"})
    yield server
    server.stop()


@pytest.fixture
def anonymous(db):
    return Api(None)


@pytest.fixture
def read_api(db):
    return Api(tokens.create_token(make_user("audrey", "auditor"), "read")[1])
